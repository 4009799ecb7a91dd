import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { dontSave } from '../src/dont-save.js';
import { log } from '../src/log.js';
import { modifyResponse } from '../src/modify-response.js';
import { stop } from '../src/stop.js';

describe('modify_response', () => {
  it('sets body, status and headers with variables replaced', async () => {
    const r = await runAction(
      modifyResponse,
      { content: 'hi $request.query.name$ via $request.method$', status: '202', headers: 'X-Out: yes\nContent-Type: application/json\n\n' },
      { request: { query: { name: 'bob' } } },
    );
    expect(r.response).toEqual({ status: 202, content: 'hi bob via POST', contentType: 'application/json', headers: { 'X-Out': 'yes' } });
    expect(r.output).toEqual(['Response set: status 202, 2 headers']);
    expect(r.stopped).toBe(false);
  });

  it('a redirect: empty body, Location and 302', async () => {
    const r = await runAction(modifyResponse, { content: '', status: 302, headers: 'Location: https://example.com' }, { token: { default_content: 'default' } });
    expect(r.response).toMatchObject({ status: 302, content: '', headers: { Location: 'https://example.com' } });
  });

  it('absent fields keep the response; stop stops', async () => {
    const r = await runAction(modifyResponse, { status: '', stop: true }, { token: { default_content: 'default', default_status: 201 } });
    expect(r.response).toMatchObject({ status: 201, content: 'default' });
    expect(r.stopped).toBe(true);
  });

  it('a status from a variable that is not a status code is an action error', async () => {
    const r = await runAction(modifyResponse, { status: '$s$' }, { vars: { s: 'teapot' } });
    expect(r.errors[0]).toMatch(/parameters\.status/);
  });

  it('a malformed header line is an action error', async () => {
    const r = await runAction(modifyResponse, { headers: 'no colon here' });
    expect(r.errors[0]).toMatch(/Invalid header line/);
  });

  it('validates the status at creation', () => {
    expect(() => validateParams(modifyResponse, { status: '99' })).toThrow(/parameters\.status/);
    expect(() => validateParams(modifyResponse, { status: 'abc' })).toThrow(/parameters\.status/);
    expect(validateParams(modifyResponse, { status: '$code$' })).toEqual({ status: '$code$' });
  });
});

describe('log', () => {
  it('adds the text to the output, marked as Markdown in markdown mode', async () => {
    const r = await runAction(log, { text: 'big order $id$', mode: 'markdown' }, { vars: { id: 'A7' } });
    expect(r.output).toEqual(['big order A7']);
    expect(r.lines[0]).toMatchObject({ markdown: true });
    expect((await runAction(log, { text: 'plain' })).lines[0].markdown).toBeUndefined();
  });

  it('marked as an error, the line is an action error and the chain goes on', async () => {
    const r = await runAction(log, { text: 'order $id$ has no customer', error: true }, { vars: { id: 'A7' } });
    expect(r.errors).toEqual(['order A7 has no customer']);
    expect(r.stopped).toBe(false);
    expect((await runAction(log, { text: 'fine', error: false })).errors).toEqual([]);
    expect(() => validateParams(log, { text: 'x', error: 'sometimes' })).toThrow(/parameters\.error/);
  });

  it('requires text and a known mode', () => {
    expect(() => validateParams(log, {})).toThrow(/parameters\.text: is required/);
    expect(() => validateParams(log, { text: 'x', mode: 'html' })).toThrow(/parameters\.mode/);
  });
});

describe('dont_save and stop', () => {
  it('dont_save marks the request and keeps the response', async () => {
    const r = await runAction(dontSave, {});
    expect(r).toMatchObject({ dontSave: true, stopped: false, errors: [] });
  });

  it('stop stops', async () => {
    expect(await runAction(stop, {})).toMatchObject({ stopped: true, dontSave: false, output: ['Stopped'] });
  });
});
