import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
let pro: { id: number; key: string };
let free: { id: number; key: string };

beforeAll(async () => {
  s = await startTestServer();
  pro = await s.user(true);
  free = await s.user(false);
});
afterAll(() => s.close());

describe('POST /token', () => {
  it('applies the seed defaults and returns every Token field', async () => {
    const t = await s.token({}, pro.key);
    expect(t).toMatchObject({
      default_status: 200,
      default_content: '',
      default_content_type: 'text/html',
      timeout: 0,
      listen: 0,
      cors: false,
      actions: false,
      request_limit: 10000,
      alias: null,
      user_id: pro.id,
      premium: true,
      expiry: null,
      expires_at: null,
    });
    for (const f of ['uuid', 'redirect', 'premium_expires_at', 'ip', 'user_agent', 'description', 'group_id', 'created_at', 'updated_at']) {
      expect(t).toHaveProperty(f);
    }
    expect(t.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('gives free and anonymous tokens the one-week expiry', async () => {
    const t = await s.token({}, free.key);
    expect(t.expiry).toBe(604800);
    const created = Date.parse(t.created_at.replace(' ', 'T') + 'Z');
    expect(Date.parse(t.expires_at.replace(' ', 'T') + 'Z') - created).toBe(604800_000);
    const anon = await s.token();
    expect(anon).toMatchObject({ user_id: null, premium: false, expiry: 604800 });
  });

  it('refuses an expiry beyond a week without premium, allows it with', async () => {
    const r = await s.call('POST', '/token', { key: free.key, json: { expiry: 604801 } });
    expect(r.status).toBe(422);
    expect(r.data.errors.expiry).toBeDefined();
    const t = await s.token({ expiry: 604801 * 2 }, pro.key);
    expect(t.expiry).toBe(604801 * 2);
  });

  it.each([
    [{ default_status: 199 }, 'default_status'],
    [{ default_status: 600 }, 'default_status'],
    [{ default_status: '200' }, 'default_status'],
    [{ timeout: 31 }, 'timeout'],
    [{ timeout: 1.5 }, 'timeout'],
    [{ listen: 11 }, 'listen'],
    [{ listen: -1 }, 'listen'],
    [{ request_limit: 10001 }, 'request_limit'],
    [{ alias: 'ab' }, 'alias'],
    [{ alias: 'a/b/c' }, 'alias'],
    [{ alias: 'token' }, 'alias'],
    [{ cors: 'yes' }, 'cors'],
    [{ group_id: 'x' }, 'group_id'],
  ])('refuses %j with 422 naming the field', async (body, field) => {
    const r = await s.call('POST', '/token', { key: pro.key, json: body });
    expect(r.status).toBe(422);
    expect(typeof r.data.message).toBe('string');
    expect(r.data.errors[field]).toBeDefined();
  });

  it('answers malformed JSON with 400', async () => {
    const r = await s.call('POST', '/token', { key: pro.key, body: '{"a":', headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.data.message).toMatch(/Malformed JSON/);
  });

  it('answers a taken alias with 409 and an alias without premium with 403', async () => {
    await s.token({ alias: 'taken-alias' }, pro.key);
    const r = await s.call('POST', '/token', { key: pro.key, json: { alias: 'taken-alias' } });
    expect(r.status).toBe(409);
    expect((await s.call('POST', '/token', { key: free.key, json: { alias: 'free-alias' } })).status).toBe(403);
  });

  it('clones settings and the password from a template, by UUID or alias', async () => {
    const src = await s.token({ default_content: 'tpl', default_status: 418, timeout: 1, listen: 2, cors: true, alias: 'tpl-src' }, pro.key);
    await s.call('PUT', `/token/${src.uuid}/password`, { key: pro.key, json: { password: 'pw' } });
    for (const ref of [src.uuid, 'tpl-src']) {
      const t = await s.token({ clone_from: ref }, pro.key);
      expect(t).toMatchObject({ default_content: 'tpl', default_status: 418, timeout: 1, listen: 2, cors: true, alias: null, password: true });
      expect(t.uuid).not.toBe(src.uuid);
    }
    const missing = await s.call('POST', '/token', { key: pro.key, json: { clone_from: 'no-such-token' } });
    expect(missing.status).toBe(422);
  });

  it("will not clone another user's token", async () => {
    const src = await s.token({ default_content: 'mine' }, pro.key);
    const r = await s.call('POST', '/token', { key: free.key, json: { clone_from: src.uuid } });
    expect(r.status).toBe(403);
  });
});

describe('token creation rate limit', () => {
  it('allows 10 a minute anonymous/free and 60 premium, then 429 with Retry-After', async () => {
    // Ten seconds into a minute, on a clock that stays there: a minute turning cannot reset the count.
    const limited = await startTestServer({ TOKEN_CREATE_PER_MIN_FREE: '10', TOKEN_CREATE_PER_MIN_PREMIUM: '60' }, { clock: { now: () => Date.UTC(2024, 0, 2, 3, 4, 10) } });
    try {
      for (let i = 0; i < 10; i++) expect((await limited.call('POST', '/token')).status).toBe(200);
      const r = await limited.call('POST', '/token');
      expect(r.status).toBe(429);
      expect(r.data.message).toMatch(/at most 10 per minute/);
      expect(r.headers.get('retry-after')).toBe('50');
      const p = await limited.user(true);
      for (let i = 0; i < 60; i++) expect((await limited.call('POST', '/token', { key: p.key })).status).toBe(200);
      expect((await limited.call('POST', '/token', { key: p.key })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('GET/PUT/DELETE /token/{id}', () => {
  it('accepts the whole object a GET returned, ignoring read-only fields', async () => {
    const t = await s.token({ alias: 'rmw-alias' }, pro.key);
    const got = (await s.call('GET', `/token/${t.uuid}`, { key: pro.key })).data;
    const r = await s.call('PUT', `/token/${t.uuid}`, { key: pro.key, json: { ...got, default_content: 'new', uuid: 'ignored', created_at: 'x', requests: 5 } });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ uuid: t.uuid, default_content: 'new', alias: 'rmw-alias', created_at: t.created_at });
  });

  it('leaves the token unchanged when the update is invalid', async () => {
    const t = await s.token({ default_content: 'before' }, pro.key);
    const r = await s.call('PUT', `/token/${t.uuid}`, { key: pro.key, json: { default_content: 'after', timeout: 99 } });
    expect(r.status).toBe(422);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: pro.key })).data.default_content).toBe('before');
  });

  it('deletes a token with its requests (204), then 404', async () => {
    const t = await s.token({}, pro.key);
    await s.call('POST', `/${t.uuid}`, { body: 'x' });
    expect((await s.call('DELETE', `/token/${t.uuid}`, { key: pro.key })).status).toBe(204);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: pro.key })).status).toBe(404);
    expect((await s.call('GET', `/token/${t.uuid}/requests`, { key: pro.key })).status).toBe(404);
    expect((await s.call('POST', `/${t.uuid}`, { body: 'x' })).status).toBe(404);
  });

  it('toggles CORS', async () => {
    const t = await s.token({}, pro.key);
    expect((await s.call('PUT', `/token/${t.uuid}/cors/toggle`, { key: pro.key })).data).toEqual({ enabled: true });
    expect((await s.call('PUT', `/token/${t.uuid}/cors/toggle`, { key: pro.key })).data).toEqual({ enabled: false });
  });
});

describe('POST /token/{id}/disassociate', () => {
  it('makes the token anonymous: out of the list, open to whoever knows its ID, requests kept', async () => {
    const u = await s.user(true);
    const other = await s.user(true);
    const t = await s.token({}, u.key);
    await s.call('POST', `/${t.uuid}`, { body: 'kept' });
    expect((await s.call('POST', `/token/${t.uuid}/disassociate`, { key: other.key })).status).toBe(403);
    expect((await s.call('POST', `/token/${t.uuid}/disassociate`)).status).toBe(401);
    const r = await s.call('POST', `/token/${t.uuid}/disassociate`, { key: u.key });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ uuid: t.uuid, user_id: null, group_id: null });
    expect((await s.call('GET', '/token', { key: u.key })).data.total).toBe(0);
    const reqs = await s.call('GET', `/token/${t.uuid}/requests`);
    expect(reqs.status).toBe(200);
    expect(reqs.data.data[0].content).toBe('kept');
    expect((await s.call('POST', `/token/${t.uuid}/disassociate`, { key: u.key })).status).toBe(409);
  });
});

describe('GET /token', () => {
  it('needs a key, and pages the caller tokens in the seed envelope with stats', async () => {
    expect((await s.call('GET', '/token')).status).toBe(401);
    const u = await s.user(false);
    const a = await s.token({}, u.key);
    const b = await s.token({}, u.key);
    await s.call('POST', `/${b.uuid}`, { body: 'x' });
    const r = await s.call('GET', '/token?per_page=1&page=2&order_by=created_at&order_direction=asc', { key: u.key });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ current_page: 2, per_page: 1, total: 2, last_page: 2, from: 2, to: 2, next_page_url: null });
    expect(r.data.prev_page_url).toMatch(/page=1/);
    expect(r.data.data[0]).toMatchObject({ uuid: b.uuid, requests: 1 });
    expect(r.data.data[0].latest_request_id).toMatch(/^[0-9a-f-]{36}$/);
    const byId = await s.call('GET', '/token?order_by=token_id&order_direction=desc', { key: u.key });
    expect(byId.data.data.map((t: { uuid: string }) => t.uuid)).toEqual([a.uuid, b.uuid].sort().reverse());
  });

  it('?query= finds tokens by ID or alias, ignoring case', async () => {
    const u = await s.user(true);
    const a = await s.token({}, u.key);
    const b = await s.token({}, u.key);
    await s.call('PUT', `/token/${b.uuid}/alias`, { key: u.key, json: { alias: `Orders-${b.uuid.slice(0, 8)}` } });
    const byAlias = await s.call('GET', `/token?query=${encodeURIComponent('orders-' + b.uuid.slice(0, 8))}`, { key: u.key });
    expect(byAlias.data).toMatchObject({ total: 1, data: [{ uuid: b.uuid }] });
    const byId = await s.call('GET', `/token?query=${a.uuid.slice(9, 23)}`, { key: u.key });
    expect(byId.data.data.map((t: { uuid: string }) => t.uuid)).toEqual([a.uuid]);
    expect((await s.call('GET', '/token?query=%25', { key: u.key })).data.total).toBe(0);
  });

  it('?group_id= keeps the tokens in that group, with ?query= too', async () => {
    const u = await s.user(false);
    const group = async (name: string) => (await s.call('POST', '/groups', { key: u.key, json: { name } })).data.id as number;
    const [sales, ops] = [await group('Sales'), await group('Ops')];
    const a = await s.token({ group_id: sales }, u.key);
    const b = await s.token({ group_id: sales }, u.key);
    await s.token({ group_id: ops }, u.key);
    await s.token({}, u.key);
    const uuids = async (qs: string) => {
      const r = await s.call('GET', `/token?${qs}`, { key: u.key });
      expect(r.status, r.text).toBe(200);
      return { total: r.data.total, uuids: r.data.data.map((t: { uuid: string }) => t.uuid).sort() };
    };
    expect(await uuids(`group_id=${sales}`)).toEqual({ total: 2, uuids: [a.uuid, b.uuid].sort() });
    expect(await uuids(`group_id=${sales}&query=${b.uuid.slice(0, 13)}`)).toEqual({ total: 1, uuids: [b.uuid] });
    expect(await uuids(`group_id=${sales}&per_page=1`)).toMatchObject({ total: 2 });
    expect((await uuids('')).total).toBe(4);
    // Another account's group, or none by that number: an empty list, as on GET /schedules.
    expect(await uuids('group_id=999999')).toEqual({ total: 0, uuids: [] });
  });

  it.each(['per_page=101', 'per_page=0', 'page=0', 'order_by=name', 'order_direction=up', 'group_id=0', 'group_id=x', 'group_id=1.5'])('refuses %s with 422', async (qs) => {
    expect((await s.call('GET', `/token?${qs}`, { key: pro.key })).status).toBe(422);
  });
});

describe('password and alias endpoints', () => {
  it('stores the password hashed and needs the old one to change it', async () => {
    const t = await s.token({}, pro.key);
    const set = await s.call('PUT', `/token/${t.uuid}/password`, { key: pro.key, json: { password: 'first', old_password: '' } });
    expect(set.status).toBe(200);
    expect(set.text).not.toContain('first');
    const row = (s.services.store as unknown as { db: { prepare(q: string): { get(x: string): { password_hash: string } } } }).db.prepare('SELECT password_hash FROM tokens WHERE uuid = ?').get(t.uuid);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect((await s.call('PUT', `/token/${t.uuid}/password`, { key: pro.key, json: { password: 'second', old_password: 'nope' } })).status).toBe(422);
    expect((await s.call('PUT', `/token/${t.uuid}/password`, { key: pro.key, json: { password: 'second', old_password: 'first' } })).status).toBe(200);
    expect((await s.call('GET', `/token/${t.uuid}/requests?password=second`)).status).toBe(200);
    expect((await s.call('GET', `/token/${t.uuid}/requests?password=first`)).status).toBe(401);
  });

  it('sets and clears an alias, 409 when taken, 422 when invalid', async () => {
    const a = await s.token({}, pro.key);
    const b = await s.token({}, pro.key);
    expect((await s.call('PUT', `/token/${a.uuid}/alias`, { key: pro.key, json: { alias: 'my-alias' } })).data.alias).toBe('my-alias');
    expect((await s.call('PUT', `/token/${b.uuid}/alias`, { key: pro.key, json: { alias: 'my-alias' } })).status).toBe(409);
    expect((await s.call('PUT', `/token/${b.uuid}/alias`, { key: pro.key, json: { alias: 'x' } })).status).toBe(422);
    expect((await s.call('PUT', `/token/${b.uuid}/alias`, { key: pro.key, json: {} })).status).toBe(422);
    expect((await s.call('PUT', `/token/${a.uuid}/alias`, { key: pro.key, json: { alias: null } })).data.alias).toBeNull();
  });
});
