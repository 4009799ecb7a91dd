import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { pushedSend } from '../src/pushed.js';
import { apiServer, type ApiServer, type Received } from './api-server.js';

const APP_KEY = 'fq7BiSDaO5in2w6dGijW';
const APP_SECRET = 'x81t4jCpcYAQiKJAw5u8wSVrSDX1cJ6tTDG0';

// Plays api.pushed.co: POST /1/push, form-encoded, answers JSON.
function pushed(r: Received) {
  if (r.path !== '/1/push') return { status: 404, json: { error: { type: 'not_found', message: 'Endpoint not found.' } } };
  if (r.method !== 'POST') return { status: 405, json: { error: { type: 'method_not_allowed', message: 'Method not allowed.' } } };
  if (r.headers['content-type'] !== 'application/x-www-form-urlencoded') return { status: 400, json: { error: { type: 'content_type_invalid', message: 'Content type must be application/x-www-form-urlencoded.' } } };
  const f = new URLSearchParams(r.body);
  if (f.get('app_key') !== APP_KEY || f.get('app_secret') !== APP_SECRET) return { status: 400, json: { error: { type: 'app_key_or_secret_invalid', message: 'App key or secret is not valid.' } } };
  if (!f.get('content')) return { status: 400, json: { error: { type: 'content_required', message: 'Content is required.' } } };
  const type = f.get('target_type');
  if (type === 'channel' && f.get('target_alias') !== 'ops') return { status: 400, json: { error: { type: 'channel_not_found', message: 'Channel alias not found.' } } };
  if (type === 'pushed_id' && !f.get('pushed_id')) return { status: 400, json: { error: { type: 'pushed_id_required', message: 'Pushed ID is required.' } } };
  if (!['app', 'channel', 'pushed_id', 'user'].includes(type ?? '')) return { status: 400, json: { error: { type: 'target_type_invalid', message: 'Target type is not valid.' } } };
  return { json: { response: { type: 'shipment_successfully_sent', message: 'Your message has been successfully sent', data: { shipment: 'XcnzNhFi2N4pjtSr7ajT' } } } };
}

let s: ApiServer;
beforeAll(async () => {
  s = await apiServer(pushed);
});
afterAll(async () => {
  await s.close();
});

const base = { app_key: APP_KEY, app_secret: '$pushed_secret$' };
const run = (params: Record<string, unknown>) =>
  runAction(pushedSend, { server: s.url, ...base, ...params }, { globals: { pushed_secret: APP_SECRET }, request: { content: 'door opened' }, services: { http: fetchHttpClient } });
const form = () => Object.fromEntries(new URLSearchParams(s.received[s.received.length - 1]!.body));

describe('pushed_send', () => {
  it("pushes to the app's subscribers, form-encoded, and logs the shipment", async () => {
    const r = await run({ target_type: 'app', target: '', message: 'Alert: $request.content$' });
    expect(r.errors).toEqual([]);
    expect(s.received.at(-1)).toMatchObject({ method: 'POST', path: '/1/push' });
    expect(form()).toEqual({ app_key: APP_KEY, app_secret: APP_SECRET, target_type: 'app', content: 'Alert: door opened' });
    expect(r.output).toEqual(['Pushed notification sent to the app (shipment XcnzNhFi2N4pjtSr7ajT)']);
  });

  it('pushes to a channel by its alias and to a Pushed ID', async () => {
    const channel = await run({ target_type: 'channel', target: ' ops ', message: 'hi' });
    expect(channel.errors).toEqual([]);
    expect(form()).toMatchObject({ target_type: 'channel', target_alias: 'ops' });
    expect(channel.output).toEqual(['Pushed notification sent to channel ops (shipment XcnzNhFi2N4pjtSr7ajT)']);
    const id = await run({ target_type: 'pushed_id', target: 'abc123', message: 'hi' });
    expect(id.errors).toEqual([]);
    expect(form()).toMatchObject({ target_type: 'pushed_id', pushed_id: 'abc123' });
  });

  it("turns Pushed's error object into an action error without the secret", async () => {
    const channel = await run({ target_type: 'channel', target: 'nope', message: 'hi' });
    expect(channel.errors).toEqual(['Pushed answered 400: Channel alias not found. (channel_not_found)']);
    const wrong = await runAction(pushedSend, { server: s.url, app_key: APP_KEY, app_secret: 'wrong-secret-value', target_type: 'app', target: 'x', message: 'hi' }, { services: { http: fetchHttpClient } });
    expect(wrong.errors).toEqual(['Pushed answered 400: App key or secret is not valid. (app_key_or_secret_invalid)']);
  });

  it('needs a target for channels, Pushed IDs and users, and a message', async () => {
    const before = s.received.length;
    expect((await run({ target_type: 'channel', target: ' ', message: 'hi' })).errors).toEqual(['target is required for target_type channel']);
    expect((await run({ target_type: 'app', target: '', message: ' ' })).errors).toEqual(['message is empty: Pushed needs a notification text']);
    expect(s.received.length).toBe(before);
  });

  it('calls https://api.pushed.co/1/push by default', async () => {
    const http = stubHttp(() => ({ status: 200, body: '{"response":{"type":"shipment_successfully_sent"}}' }));
    const r = await runAction(pushedSend, { ...base, app_secret: APP_SECRET, target_type: 'user', target: 'user-oauth-token', message: 'hi' }, { services: { http } });
    expect(r.errors).toEqual([]);
    expect(http.sent[0]).toMatchObject({ method: 'POST', url: 'https://api.pushed.co/1/push' });
    expect(Object.fromEntries(new URLSearchParams(String(http.sent[0]!.body)))).toMatchObject({ target_type: 'user', access_token: 'user-oauth-token' });
    expect(r.output).toEqual(['Pushed notification sent to the user']);
  });

  it('validates the parameters on create', () => {
    const ok = { app_key: 'k', app_secret: 's', target_type: 'app', target: '', message: 'hi' };
    expect(validateParams(pushedSend, ok)).toBeTruthy();
    expect(() => validateParams(pushedSend, { ...ok, app_secret: undefined })).toThrow(/parameters.app_secret: is required/);
    expect(() => validateParams(pushedSend, { ...ok, target_type: 'everyone' })).toThrow(/parameters.target_type/);
    expect(() => validateParams(pushedSend, { ...ok, message: undefined })).toThrow(/parameters.message: is required/);
    expect(() => validateParams(pushedSend, { ...ok, target: undefined })).toThrow(/parameters.target: is required/);
    expect(() => validateParams(pushedSend, { ...ok, server: 'api.pushed.co' })).toThrow(/parameters.server/);
  });
});
