// Teams and user types through the HTTP API of a started service: invites (with and without an SMTP
// relay; the relay is another instance's own SMTP server, whose token address receives the e-mail),
// the users list, changing and removing users, and what Viewers, Members and Administrators may do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { MAIL_INFO } from '../../service-keys.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ SMTP_ENABLED: 'false' });
});
afterAll(() => s.close());

let n = 0;
const email = () => `person${++n}.${Date.now()}@example.test`;

/** Invites someone into the team of `adminKey` and accepts the invite: their ID and API key. */
async function member(adminKey: string, userTypeId: 100 | 200 | 300) {
  const inv = await s.call('POST', '/users/invite', { key: adminKey, json: { name: `Person ${n}`, email: email(), user_type_id: userTypeId } });
  expect(inv.status).toBe(201);
  const secret = String(inv.data.invite_url).split('/#/invite/')[1]!;
  const acc = await s.call('POST', `/users/invite/${secret}/accept`);
  expect(acc.status).toBe(201);
  return { id: acc.data.id as number, key: acc.data.api_key as string, team_id: acc.data.team_id as number };
}

describe('invites without a relay', () => {
  it('answer the one-time link; the person sets up their API key with it once', async () => {
    const admin = await s.user(false);
    const addr = email();
    const inv = await s.call('POST', '/users/invite', { key: admin.key, json: { name: 'Elijah Craig', email: addr, user_type_id: 300, role_id: 20001 } });
    expect(inv.status).toBe(201);
    expect(inv.data).toMatchObject({
      name: 'Elijah Craig',
      email: addr,
      user_type_id: 300,
      user_type: 'Viewer',
      team_id: admin.id,
      invite_pending: true,
      invite_sent: false,
      roles: [{ id: 20001, team_id: admin.id }],
    });
    expect(inv.data.invite_url).toMatch(new RegExp(`^${s.url}/#/invite/[A-Za-z0-9_-]{20,}$`));
    expect(inv.data).not.toHaveProperty('invite_hash');
    const secret = inv.data.invite_url.split('/#/invite/')[1];

    const shown = await s.call('GET', `/users/invite/${secret}`);
    expect(shown.data).toMatchObject({ name: 'Elijah Craig', email: addr, user_type: 'Viewer', team_id: admin.id });
    const acc = await s.call('POST', `/users/invite/${secret}/accept`);
    expect(acc.status).toBe(201);
    expect(acc.data).toMatchObject({ id: inv.data.id, invite_pending: false });
    expect((await s.call('GET', '/users/me', { key: acc.data.api_key })).data).toMatchObject({ id: inv.data.id, team_id: admin.id, user_type_id: 300 });
    expect((await s.call('POST', `/users/invite/${secret}/accept`)).status).toBe(404);
    expect((await s.call('GET', `/users/invite/${secret}`)).status).toBe(404);
    expect((await s.call('POST', '/users/invite/not-a-secret/accept')).status).toBe(404);
  });

  it('validate the body, refuse a known e-mail, and need an Administrator', async () => {
    const admin = await s.user(false);
    const bad = await s.call('POST', '/users/invite', { key: admin.key, json: { name: '', email: 'nope', user_type_id: 150 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.data.errors).sort()).toEqual(['email', 'name', 'user_type_id']);
    const addr = email();
    expect((await s.call('POST', '/users/invite', { key: admin.key, json: { name: 'A', email: addr, user_type_id: 200 } })).status).toBe(201);
    const dup = await s.call('POST', '/users/invite', { key: admin.key, json: { name: 'B', email: addr.toUpperCase(), user_type_id: 200 } });
    expect(dup.status).toBe(422);
    expect(dup.data.errors.email).toBeDefined();
    const m = await member(admin.key, 200);
    expect((await s.call('POST', '/users/invite', { key: m.key, json: { name: 'C', email: email(), user_type_id: 300 } })).status).toBe(403);
    expect((await s.call('POST', '/users/invite', { json: { name: 'C', email: email(), user_type_id: 300 } })).status).toBe(401);
    // An Administrator invites into their own team only.
    const other = await s.user(false);
    expect((await s.call('POST', '/users/invite', { key: admin.key, json: { name: 'D', email: email(), user_type_id: 300, team_id: other.id } })).status).toBe(403);
  });

  it('by the administrator key: into a given team, or a new one of their own', async () => {
    const admin = await s.user(false);
    const into = await s.call('POST', '/users/invite', { key: ADMIN_KEY, json: { name: 'In', email: email(), user_type_id: 200, team_id: admin.id } });
    expect(into.data.team_id).toBe(admin.id);
    const alone = await s.call('POST', '/users/invite', { key: ADMIN_KEY, json: { name: 'Alone', email: email(), user_type_id: 100 } });
    expect(alone.data.team_id).toBe(alone.data.id);
    const none = await s.call('POST', '/users/invite', { key: ADMIN_KEY, json: { name: 'X', email: email(), user_type_id: 100, team_id: 987654 } });
    expect(none.status).toBe(422);
    expect(none.data.errors.team_id).toBeDefined();
  });
});

describe('the users list', () => {
  it("is the team's users in the documented page envelope; the administrator key sees every team", async () => {
    const admin = await s.user(false);
    const a = await member(admin.key, 200);
    const b = await member(admin.key, 300);
    await s.user(false);
    const p1 = await s.call('GET', '/users?per_page=2', { key: admin.key });
    expect(p1.status).toBe(200);
    expect(p1.data).toMatchObject({ current_page: 1, from: 1, to: 2, last_page: 2, per_page: 2, total: 3, prev_page_url: null });
    expect(p1.data.data.map((u: { id: number }) => u.id)).toEqual([admin.id, a.id]);
    expect(p1.data.data[0]).toMatchObject({ team_id: admin.id, user_type_id: 100, two_factor_enabled: 0, last_login_at: null });
    expect(p1.data.next_page_url).toBe(`${s.url}/users?per_page=2&page=2`);
    expect(p1.data.links.map((l: { label: string }) => l.label)).toEqual(['&laquo; Previous', '1', '2', 'Next &raquo;']);
    expect(p1.data.links[1]).toEqual({ url: `${s.url}/users?per_page=2&page=1`, label: '1', active: true });
    const p2 = await s.call('GET', '/users?per_page=2&page=2', { key: admin.key });
    expect(p2.data.data.map((u: { id: number }) => u.id)).toEqual([b.id]);
    expect(JSON.stringify(p1.data)).not.toContain(a.key);
    expect((await s.call('GET', '/users?per_page=101', { key: admin.key })).status).toBe(422);
    expect((await s.call('GET', '/users', { key: a.key })).status).toBe(403);
    const all = await s.call('GET', `/users?team_id=${admin.id}`, { key: ADMIN_KEY });
    expect(all.data.total).toBe(3);
    expect((await s.call('GET', '/users', { key: ADMIN_KEY })).data.total).toBeGreaterThan(3);
  });
});

describe('what each user type may do', () => {
  it('Viewers read the team’s tokens and requests and change nothing; Members create and edit own and team tokens', async () => {
    const admin = await s.user(true);
    const viewer = await member(admin.key, 300);
    const mem = await member(admin.key, 200);
    const t = await s.token({}, admin.key);
    expect(t.team_id).toBe(admin.id);
    const cap = await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: 'hello' });
    expect(cap.status).toBe(200);
    const listed = await s.call('GET', `/token/${t.uuid}/requests`, { key: viewer.key });
    expect(listed.status).toBe(200);
    // Captured requests carry the token's team.
    expect(listed.data.data[0]).toMatchObject({ content: 'hello', team_id: admin.id });
    expect((await s.call('GET', '/token', { key: viewer.key })).data.data.map((x: { uuid: string }) => x.uuid)).toContain(t.uuid);
    for (const [method, path] of [
      ['POST', '/token'],
      ['PUT', `/token/${t.uuid}`],
      ['DELETE', `/token/${t.uuid}`],
      ['DELETE', `/token/${t.uuid}/request`],
    ] as const) {
      const r = await s.call(method, path, { key: viewer.key, json: {} });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.data.message).toMatch(/Viewer/);
    }
    expect((await s.call('GET', `/token/${t.uuid}/requests`, { key: admin.key })).data.total).toBe(1);
    // Their own API keys are theirs to manage.
    expect((await s.call('POST', `/users/${viewer.id}/api-keys`, { key: viewer.key })).status).toBe(201);
    // And so is what they have seen of their error log.
    expect((await s.call('POST', '/errors/read', { key: viewer.key, json: {} })).status).toBe(200);

    const own = await s.token({ description: 'mine' }, mem.key);
    expect(own).toMatchObject({ user_id: mem.id, team_id: admin.id });
    expect((await s.call('PUT', `/token/${t.uuid}`, { key: mem.key, json: { description: 'edited by a member' } })).data.description).toBe('edited by a member');
    expect((await s.call('GET', `/token/${own.uuid}`, { key: admin.key })).status).toBe(200);
    expect((await s.call('GET', `/users`, { key: mem.key })).status).toBe(403);
    // Another team's tokens stay closed.
    const stranger = await s.user(true);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: stranger.key })).status).toBe(403);
    expect((await s.call('GET', '/token', { key: stranger.key })).data.data).toEqual([]);
  });
});

describe('changing and removing users', () => {
  it('PUT changes name, e-mail, user type and role; the last Administrator stays one', async () => {
    const admin = await s.user(false);
    const v = await member(admin.key, 300);
    const addr = email();
    const put = await s.call('PUT', `/users/${v.id}`, { key: admin.key, json: { name: 'Promoted', email: addr, user_type_id: 200, role_id: 7 } });
    expect(put.status).toBe(200);
    expect(put.data).toMatchObject({ id: v.id, name: 'Promoted', email: addr, user_type_id: 200, user_type: 'Member', role_id: 7 });
    // The new type applies at once.
    expect((await s.call('POST', '/token', { key: v.key, json: {} })).status).toBe(200);
    expect((await s.call('PUT', `/users/${v.id}`, { key: admin.key, json: { user_type_id: 1 } })).status).toBe(422);
    const last = await s.call('PUT', `/users/${admin.id}`, { key: admin.key, json: { user_type_id: 300 } });
    expect(last.status).toBe(409);
    expect((await s.call('GET', '/users/me', { key: admin.key })).data.user_type_id).toBe(100);
    expect((await s.call('PUT', `/users/${v.id}`, { key: v.key, json: { name: 'self' } })).status).toBe(403);
    const other = await s.user(false);
    expect((await s.call('PUT', `/users/${v.id}`, { key: other.key, json: { name: 'x' } })).status).toBe(404);
    expect((await s.call('PUT', `/users/${v.id}`, { key: ADMIN_KEY, json: { name: 'By the admin key' } })).data.name).toBe('By the admin key');
  });

  it('DELETE gives their tokens to the team (tokens=team) or deletes them (tokens=delete); their keys stop working', async () => {
    const admin = await s.user(false);
    const a = await member(admin.key, 200);
    const b = await member(admin.key, 200);
    const ta = await s.token({}, a.key);
    const tb = await s.token({}, b.key);
    expect((await s.call('DELETE', `/users/${a.id}?tokens=elsewhere`, { key: admin.key })).status).toBe(422);
    expect((await s.call('DELETE', `/users/${a.id}`, { key: admin.key })).status).toBe(204);
    expect((await s.call('GET', '/users/me', { key: a.key })).status).toBe(401);
    expect((await s.call('GET', `/token/${ta.uuid}`, { key: admin.key })).data).toMatchObject({ user_id: admin.id, team_id: admin.id });

    expect((await s.call('DELETE', `/users/${b.id}?tokens=delete`, { key: admin.key })).status).toBe(204);
    expect((await s.call('GET', `/token/${tb.uuid}`, { key: admin.key })).status).toBe(404);
    expect((await fetch(`${s.url}/${tb.uuid}`)).status).toBe(404);
    expect((await s.call('DELETE', `/users/${admin.id}`, { key: admin.key })).status).toBe(409);
    expect((await s.call('DELETE', `/users/${b.id}`, { key: admin.key })).status).toBe(404);
  });

  it('the administrator key removes anyone; with nobody left to take the tokens only tokens=delete', async () => {
    const solo = await s.user(false);
    const t = await s.token({}, solo.key);
    const r = await s.call('DELETE', `/users/${solo.id}`, { key: ADMIN_KEY });
    expect(r.status).toBe(409);
    expect(r.data.errors.tokens).toBeDefined();
    expect((await s.call('GET', `/token/${t.uuid}`, { key: solo.key })).status).toBe(200);
    expect((await s.call('DELETE', `/users/${solo.id}?tokens=delete`, { key: ADMIN_KEY })).status).toBe(204);
    expect((await s.call('GET', `/token/${t.uuid}`, { key: ADMIN_KEY })).status).toBe(404);
  });
});

describe('invites through an SMTP relay', () => {
  let mailbox: TestServer;
  let relayed: TestServer;
  beforeAll(async () => {
    // The relay is another instance's own SMTP server: its token addresses store what arrives.
    mailbox = await startTestServer();
    const port = mailbox.provided.get(MAIL_INFO)!.port!;
    relayed = await startTestServer({ SMTP_ENABLED: 'false', SMTP_RELAY_URL: `smtp://127.0.0.1:${port}?ignoreTLS=true` });
  });
  afterAll(async () => {
    await relayed?.close();
    await mailbox?.close();
  });

  it('e-mails the link (not in the answer); the link sets up the API key', async () => {
    // The inbox is a team's token: the e-mail capture carries that team too.
    const owner = await mailbox.user(false);
    const inbox = await mailbox.token({}, owner.key);
    const admin = await relayed.user(false);
    const to = `${inbox.uuid}@email.localhost`;
    const inv = await relayed.call('POST', '/users/invite', { key: admin.key, json: { name: 'Mailed Person', email: to, user_type_id: 200 } });
    expect(inv.status).toBe(201);
    expect(inv.data).toMatchObject({ invite_sent: true, invite_pending: true, email: to });
    expect(inv.data).not.toHaveProperty('invite_url');
    const got = await mailbox.call('GET', `/token/${inbox.uuid}/requests`, { key: owner.key });
    expect(got.data.total).toBe(1);
    const mail = got.data.data[0];
    expect(mail).toMatchObject({ type: 'email', team_id: owner.id });
    const text: string = mail.content;
    expect(text).toContain('Mailed Person');
    const link = /\/#\/invite\/([A-Za-z0-9_-]+)/.exec(text.replace(/=\r?\n/g, ''));
    expect(link).not.toBeNull();
    const acc = await relayed.call('POST', `/users/invite/${link![1]}/accept`);
    expect(acc.status).toBe(201);
    expect((await relayed.call('GET', '/users/me', { key: acc.data.api_key })).data).toMatchObject({ name: 'Mailed Person', team_id: admin.id, user_type_id: 200 });
  });

  it('answers 502 and keeps no user when the relay refuses', async () => {
    const broken = await startTestServer({ SMTP_ENABLED: 'false', SMTP_RELAY_URL: 'smtp://127.0.0.1:1' });
    try {
      const admin = await broken.user(false);
      const r = await broken.call('POST', '/users/invite', { key: admin.key, json: { name: 'Nobody', email: 'nobody@example.test', user_type_id: 300 } });
      expect(r.status).toBe(502);
      expect(r.data.message).toMatch(/SMTP relay/);
      expect((await broken.call('GET', '/users', { key: admin.key })).data.total).toBe(1);
    } finally {
      await broken.close();
    }
  });
});

describe('members limited to groups', () => {
  it('see, open and create only tokens in their groups; every list honours it', async () => {
    const admin = await s.user(true);
    const group = async (name: string) => (await s.call('POST', '/groups', { key: admin.key, json: { name } })).data.id as number;
    const [sales, ops] = [await group('Sales'), await group('Ops')];
    const inSales = await s.token({ group_id: sales }, admin.key);
    const inOps = await s.token({ group_id: ops }, admin.key);
    const loose = await s.token({}, admin.key);
    await s.call('POST', `/${inOps.uuid}`, { body: 'ops only' });
    const m = await member(admin.key, 200);
    const put = await s.call('PUT', `/users/${m.id}`, { key: admin.key, json: { group_ids: [sales] } });
    expect(put.status).toBe(200);
    expect(put.data.group_ids).toEqual([sales]);

    // Lists: tokens (also with a search), groups.
    const listed = await s.call('GET', '/token', { key: m.key });
    expect(listed.data.data.map((t: { uuid: string }) => t.uuid)).toEqual([inSales.uuid]);
    expect((await s.call('GET', `/token?query=${inOps.uuid}`, { key: m.key })).data.total).toBe(0);
    expect((await s.call('GET', `/token?group_id=${ops}`, { key: m.key })).data.total).toBe(0);
    expect((await s.call('GET', `/token?group_id=${sales}`, { key: m.key })).data.data.map((t: { uuid: string }) => t.uuid)).toEqual([inSales.uuid]);
    expect((await s.call('GET', '/groups', { key: m.key })).data.data.map((g: { name: string }) => g.name)).toEqual(['Sales']);
    // Reads and changes of a token outside the groups are refused, its requests too.
    for (const path of [`/token/${inOps.uuid}`, `/token/${inOps.uuid}/requests`, `/token/${loose.uuid}`, `/token/${inOps.uuid}/actions`]) {
      const r = await s.call('GET', path, { key: m.key });
      expect([path, r.status, r.data.message]).toEqual([path, 403, 'This token is outside the groups you may open']);
    }
    expect((await s.call('PUT', `/token/${inOps.uuid}`, { key: m.key, json: { cors: true } })).status).toBe(403);
    expect((await s.call('GET', `/token/${inSales.uuid}/requests`, { key: m.key })).status).toBe(200);
    // New tokens go in one of their groups.
    const none = await s.call('POST', '/token', { key: m.key, json: {} });
    expect(none.status).toBe(422);
    expect(none.data.errors).toHaveProperty('group_id');
    expect((await s.call('POST', '/token', { key: m.key, json: { group_id: ops } })).status).toBe(422);
    const made = await s.call('POST', '/token', { key: m.key, json: { group_id: sales } });
    expect(made.status).toBe(200);
    expect((await s.call('PUT', `/token/${made.data.uuid}`, { key: m.key, json: { group_id: ops } })).status).toBe(422);
    expect((await s.call('PUT', `/token/${made.data.uuid}`, { key: m.key, json: { cors: true } })).status).toBe(200);
    // The Administrator is not limited; lifting the limit opens everything again.
    expect((await s.call('GET', '/token', { key: admin.key })).data.total).toBe(4);
    await s.call('PUT', `/users/${m.id}`, { key: admin.key, json: { group_ids: null } });
    expect((await s.call('GET', '/token', { key: m.key })).data.total).toBe(4);
    expect((await s.call('GET', `/token/${inOps.uuid}/requests`, { key: m.key })).status).toBe(200);
  });

  it("group_ids must name the team's groups", async () => {
    const admin = await s.user(false);
    const outsider = await s.user(false);
    const theirs = (await s.call('POST', '/groups', { key: outsider.key, json: { name: 'Theirs' } })).data.id as number;
    const m = await member(admin.key, 200);
    for (const group_ids of [[theirs], [999_999], ['x'], [0]]) {
      const r = await s.call('PUT', `/users/${m.id}`, { key: admin.key, json: { group_ids } });
      expect([group_ids, r.status, Object.keys(r.data.errors ?? {})[0]]).toEqual([group_ids, 422, expect.stringMatching(/^group_ids/)]);
    }
    const inv = await s.call('POST', '/users/invite', { key: admin.key, json: { name: 'G', email: email(), user_type_id: 300, group_ids: [theirs] } });
    expect(inv.status).toBe(422);
    const mine = (await s.call('POST', '/groups', { key: admin.key, json: { name: 'Mine' } })).data.id as number;
    const ok = await s.call('POST', '/users/invite', { key: admin.key, json: { name: 'G', email: email(), user_type_id: 300, group_ids: [mine] } });
    expect([ok.status, ok.data.group_ids]).toEqual([201, [mine]]);
  });
});
