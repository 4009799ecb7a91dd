// MAX_REQUEST_LIMIT: the highest request_limit a token may have (the seed's 10,000 unless the
// operator raises it, up to 1,000,000), checked on create and update and shown in /openapi.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

type Doc = { paths: Record<string, Record<string, { requestBody: { content: { 'application/json': { schema: { properties: Record<string, { maximum?: number }> } } } } }>> };
const maxIn = (doc: unknown, path: string, method: string) => (doc as Doc).paths[path]![method]!.requestBody.content['application/json'].schema.properties.request_limit!.maximum;

describe.each([
  ['unset (the seed cap)', {}, 10_000],
  ['raised to 1,000,000', { MAX_REQUEST_LIMIT: '1000000' }, 1_000_000],
  ['lowered to 50', { MAX_REQUEST_LIMIT: '50' }, 50],
])('MAX_REQUEST_LIMIT %s', (_name, env, max) => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer(env);
    key = (await s.user(true)).key;
  });
  afterAll(() => s.close());

  it('accepts request_limit at the maximum on create and update', async () => {
    const t = await s.token({ request_limit: max }, key);
    expect(t.request_limit).toBe(max);
    const r = await s.call('PUT', `/token/${t.uuid}`, { key, json: { request_limit: max } });
    expect(r.status).toBe(200);
    expect(r.data.request_limit).toBe(max);
  });

  it('refuses one above with 422 naming request_limit and the setting, and keeps the stored value', async () => {
    const created = await s.call('POST', '/token', { key, json: { request_limit: max + 1 } });
    expect(created.status).toBe(422);
    expect(created.data.errors.request_limit[0]).toContain(`at most ${max}`);
    expect(created.data.errors.request_limit[0]).toContain('MAX_REQUEST_LIMIT');
    const t = await s.token({ request_limit: 7 }, key);
    const updated = await s.call('PUT', `/token/${t.uuid}`, { key, json: { request_limit: max + 1 } });
    expect(updated.status).toBe(422);
    expect(updated.data.message).toContain('request_limit');
    expect((await s.call('GET', `/token/${t.uuid}`, { key })).data.request_limit).toBe(7);
  });

  it('gives a new token request_limit 10,000, or the maximum when that is lower', async () => {
    const t = await s.token({}, key);
    expect(t.request_limit).toBe(Math.min(10_000, max));
  });

  it('documents the maximum in /openapi.json for POST and PUT', async () => {
    const doc = (await s.call('GET', '/openapi.json')).data;
    expect(maxIn(doc, '/token', 'post')).toBe(max);
    expect(maxIn(doc, '/token/{token_id}', 'put')).toBe(max);
  });
});

it('refuses a MAX_REQUEST_LIMIT above 1,000,000 or below 1 at start-up', () => {
  expect(() => loadConfig({ MAX_REQUEST_LIMIT: '1000001' })).toThrow(/MAX_REQUEST_LIMIT/);
  expect(() => loadConfig({ MAX_REQUEST_LIMIT: '0' })).toThrow(/MAX_REQUEST_LIMIT/);
});
