import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('users and API keys', () => {
  it('only the administrator creates and lists users', async () => {
    const u = await s.user(false);
    expect((await s.call('POST', '/users', { json: { name: 'x', email: 'x@example.test' } })).status).toBe(401);
    expect((await s.call('POST', '/users', { key: u.key, json: { name: 'x', email: 'x@example.test' } })).status).toBe(403);
    expect((await s.call('POST', '/users', { key: 'nope', json: { name: 'x', email: 'x@example.test' } })).status).toBe(401);
    expect((await s.call('GET', '/users', { key: ADMIN_KEY.slice(0, -1) })).status).toBe(401);
    const list = await s.call('GET', '/users', { key: ADMIN_KEY });
    expect(list.data.data.some((x: { id: number }) => x.id === u.id)).toBe(true);
    expect(JSON.stringify(list.data)).not.toContain(u.key);
  });

  it('validates the user body', async () => {
    const r = await s.call('POST', '/users', { key: ADMIN_KEY, json: { name: '', email: 'not-an-email' } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.data.errors).sort()).toEqual(['email', 'name']);
  });

  it('stores API keys hashed; issues and revokes more keys', async () => {
    const u = await s.user(true);
    const db = (s.services.store as unknown as { db: { prepare(q: string): { all(): Array<{ hash: string }> } } }).db;
    const hashes = db
      .prepare('SELECT hash FROM api_keys')
      .all()
      .map((r) => r.hash);
    expect(hashes).not.toContain(u.key);
    const k2 = await s.call('POST', `/users/${u.id}/api-keys`, { key: u.key });
    expect(k2.status).toBe(201);
    expect((await s.call('GET', '/users/me', { key: k2.data.api_key })).data.id).toBe(u.id);
    const keys = await s.call('GET', `/users/${u.id}/api-keys`, { key: u.key });
    expect(keys.data.data).toHaveLength(2);
    expect(JSON.stringify(keys.data)).not.toContain(k2.data.api_key);
    expect((await s.call('DELETE', `/users/${u.id}/api-keys/${k2.data.id}`, { key: u.key })).status).toBe(204);
    expect((await s.call('GET', '/users/me', { key: k2.data.api_key })).status).toBe(401);
    expect((await s.call('DELETE', `/users/${u.id}/api-keys/${k2.data.id}`, { key: u.key })).status).toBe(404);
    const other = await s.user(false);
    expect((await s.call('POST', `/users/${u.id}/api-keys`, { key: other.key })).status).toBe(403);
  });
});

describe('token access', () => {
  it("a user's token needs that user's key; others get 403", async () => {
    const owner = await s.user(false);
    const other = await s.user(false);
    const t = await s.token({}, owner.key);
    expect(t.user_id).toBe(owner.id);
    expect((await s.call('GET', `/token/${t.uuid}`)).status).toBe(401);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: other.key })).status).toBe(403);
    expect((await s.call('DELETE', `/token/${t.uuid}`, { key: other.key })).status).toBe(403);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: owner.key })).status).toBe(200);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: ADMIN_KEY })).status).toBe(200);
  });

  it('anonymous tokens are open; a password closes them to all but Basic Auth or ?password=', async () => {
    const p = await s.user(true);
    const t = await s.token({}, p.key);
    await s.call('PUT', `/token/${t.uuid}/password`, { key: p.key, json: { password: 'pw' } });
    const basic = (pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`any:${pw}`).toString('base64') });
    expect((await s.call('GET', `/token/${t.uuid}/requests`, { headers: basic('pw') })).status).toBe(200);
    expect((await s.call('GET', `/token/${t.uuid}/requests`, { headers: basic('no') })).status).toBe(401);
    expect((await s.call('GET', `/token/${t.uuid}/requests`)).status).toBe(401);
    const anon = await s.token();
    expect((await s.call('GET', `/token/${anon.uuid}`)).status).toBe(200);
  });

  it('password and alias endpoints are premium-only', async () => {
    const f = await s.user(false);
    const t = await s.token({}, f.key);
    expect((await s.call('PUT', `/token/${t.uuid}/password`, { key: f.key, json: { password: 'x' } })).status).toBe(403);
    expect((await s.call('PUT', `/token/${t.uuid}/alias`, { key: f.key, json: { alias: 'free-one' } })).status).toBe(403);
  });
});
