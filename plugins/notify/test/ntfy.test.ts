import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { ntfy } from '../src/ntfy.js';
import { apiServer, type ApiServer, type Received } from './api-server.js';

/** What ntfy does with an RFC 2047 header (Go's mime.WordDecoder): decodes =?UTF-8?B?...?=. */
function decodeHeader(v: string | string[] | undefined): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/i.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}

// Plays an ntfy server: POST /<topic> publishes the body, with Title and Icon headers.
function ntfyServer(r: Received) {
  const topic = r.path.slice(1);
  if (r.method !== 'POST' && r.method !== 'PUT') return { status: 405, json: { code: 40501, http: 405, error: 'method not allowed' } };
  if (!/^[-_A-Za-z0-9]{1,64}$/.test(topic)) return { status: 404, json: { code: 40401, http: 404, error: 'page not found' } };
  if (topic === 'limited') return { status: 429, json: { code: 42901, http: 429, error: 'limit reached: too many requests', link: 'https://ntfy.sh/docs/publish/#limitations' } };
  const icon = r.headers.icon;
  if (typeof icon === 'string' && !/^https?:\/\//.test(icon)) return { status: 400, json: { code: 40021, http: 400, error: 'invalid request: icon URL is invalid' } };
  const title = decodeHeader(r.headers.title ?? r.headers['x-title']);
  return { json: { id: 'sPs71M8A2T', time: 1700000000, expires: 1700043200, event: 'message', topic, message: r.body, ...(title ? { title } : {}), ...(icon ? { icon } : {}) } };
}

let s: ApiServer;
beforeAll(async () => {
  s = await apiServer(ntfyServer);
});
afterAll(async () => {
  await s.close();
});

const run = (params: Record<string, unknown>) => runAction(ntfy, params, { request: { content: 'disk full', method: 'PUT' }, services: { http: fetchHttpClient } });
const last = () => s.received[s.received.length - 1]!;

describe('ntfy', () => {
  it('publishes the message to <server>/<topic> with Title and Icon headers', async () => {
    const r = await run({ server: s.url, topic: 'capture_alerts', title: 'Got a $request.method$', icon: 'https://example.com/icon.png', message: 'Body: $request.content$' });
    expect(r.errors).toEqual([]);
    expect(last()).toMatchObject({ method: 'POST', path: '/capture_alerts', body: 'Body: disk full' });
    expect(last().headers).toMatchObject({ title: 'Got a PUT', icon: 'https://example.com/icon.png', 'content-type': 'text/plain; charset=utf-8' });
    expect(r.output).toEqual([`ntfy notification sPs71M8A2T published to ${new URL(s.url).host}/capture_alerts`]);
  });

  it('sends no Title or Icon header when they are empty', async () => {
    const r = await run({ server: `${s.url}/`, topic: 'plain', title: '', icon: null, message: 'hi' });
    expect(r.errors).toEqual([]);
    expect(last().path).toBe('/plain');
    expect(last().headers.title).toBeUndefined();
    expect(last().headers.icon).toBeUndefined();
  });

  it('encodes a title that is not plain ASCII so ntfy decodes it', async () => {
    const r = await run({ server: s.url, topic: 'utf8', title: 'Tür offen ✓\nzweite Zeile', message: 'ünïcödé body' });
    expect(r.errors).toEqual([]);
    expect(decodeHeader(last().headers.title)).toBe('Tür offen ✓\nzweite Zeile');
    expect(last().body).toBe('ünïcödé body');
  });

  it("turns ntfy's JSON errors into action errors", async () => {
    const limited = await run({ server: s.url, topic: 'limited', message: 'hi' });
    expect(limited.errors).toEqual(['ntfy answered 429: limit reached: too many requests (code 42901)']);
    const icon = await run({ server: s.url, topic: 'x', icon: 'icon.png', message: 'hi' });
    expect(icon.errors).toEqual(['ntfy answered 400: invalid request: icon URL is invalid (code 40021)']);
  });

  it('reports an unreachable server', async () => {
    const r = await run({ server: 'http://127.0.0.1:1', topic: 'x', message: 'hi' });
    expect(r.errors[0]).toMatch(/^Could not reach ntfy \(127\.0\.0\.1:1\): /);
  });

  it('publishes to https://ntfy.sh by default', async () => {
    const http = stubHttp(() => ({ status: 200, body: '{"id":"abc","topic":"mytopic"}' }));
    const r = await runAction(ntfy, { topic: 'mytopic', message: 'hi' }, { services: { http } });
    expect(r.errors).toEqual([]);
    expect(http.sent[0]).toMatchObject({ method: 'POST', url: 'https://ntfy.sh/mytopic', body: 'hi' });
    expect(r.output).toEqual(['ntfy notification abc published to ntfy.sh/mytopic']);
  });

  it('validates the parameters on create and at run time', async () => {
    expect(() => validateParams(ntfy, { message: 'hi' })).toThrow(/parameters.topic: is required/);
    expect(() => validateParams(ntfy, { topic: 'a' })).toThrow(/parameters.message: is required/);
    expect(() => validateParams(ntfy, { topic: 'a/b', message: 'hi' })).toThrow(/parameters.topic: must be 1-64 letters, digits, - or _/);
    expect(() => validateParams(ntfy, { topic: 'a', message: 'hi', server: 'ntfy.sh' })).toThrow(/parameters.server/);
    expect(validateParams(ntfy, { topic: '$topic$', message: 'hi', title: null })).toBeTruthy();
    const r = await runAction(ntfy, { topic: '$topic$', message: 'hi' }, { vars: { topic: 'has space' } });
    expect(r.errors[0]).toMatch(/topic/);
  });
});
