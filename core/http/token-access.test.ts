import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

let now = Date.parse('2026-01-01T00:00:00Z');
const clock = { now: () => now };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({}, { clock });
});
afterAll(() => s.close());

describe('token access through the API', () => {
  it('answers 404 for a token from the moment expires_at is reached, before the cleanup job deletes it', async () => {
    const p = await s.user(true);
    const t = await s.token({ expiry: 60, alias: 'soon-gone' }, p.key);
    await s.call('POST', `/${t.uuid}`, { body: 'x' });
    now += 59_999;
    expect((await s.call('GET', `/token/${t.uuid}`, { key: p.key })).status).toBe(200);
    now += 1;
    for (const [method, path] of [
      ['GET', `/token/${t.uuid}`],
      ['GET', '/token/soon-gone'],
      ['GET', `/token/${t.uuid}/requests`],
      ['GET', `/token/${t.uuid}/request/latest`],
      ['PUT', `/token/${t.uuid}`],
      ['DELETE', `/token/${t.uuid}`],
    ] as const) {
      const r = await s.call(method, path, { key: p.key, ...(method === 'PUT' ? { json: { description: 'x' } } : {}) });
      expect({ method, path, status: r.status, message: r.data?.message }).toEqual({ method, path, status: 404, message: 'Token not found' });
    }
    expect((await s.call('POST', `/${t.uuid}`, { body: 'late' })).status).toBe(404);
    // Still stored: only the cleanup job deletes it.
    expect(await s.services.store.tokens.get(t.uuid)).not.toBeNull();
  });
});
