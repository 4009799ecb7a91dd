// The error log end to end through the running service: actions that fail on captures (inline and
// queued) and schedule runs that fail land in their account's list, searchable, with an unread count
// that marking read lowers; each account sees its own, the administrator every account's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let alice: { id: number; key: string };
let bob: { id: number; key: string };
let token: Record<string, any>;

/** Polls GET /errors until `n` entries match (the log is written in batches a moment later). */
async function waitForErrors(key: string, query: string, n: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await s.call('GET', `/errors?${query}`, { key });
    expect(r.status).toBe(200);
    if (r.data.total >= n || Date.now() > deadline) return r.data;
    await new Promise((done) => setTimeout(done, 50));
  }
}

beforeAll(async () => {
  s = await startTestServer({ SCHEDULER_POLL_MS: '100' });
  alice = await s.user(true);
  bob = await s.user(false);
  token = await s.token({ actions: true }, alice.key);
  const add = await s.call('POST', `/token/${token.uuid}/actions`, {
    key: alice.key,
    json: { order: 1, type: 'javascript', parameters: { script: "throw new Error('boom in the chain')" } },
  });
  expect(add.status).toBe(200);
});
afterAll(async () => {
  await s?.close();
});

describe('error log', () => {
  it("records an action's error on a capture: time, token, action, message, the request", async () => {
    const res = await fetch(`${s.url}/${token.uuid}/hook`, { method: 'POST', body: 'x' });
    expect(res.ok).toBe(true);
    const page = await waitForErrors(alice.key, 'source=action', 1);
    expect(page.total).toBe(1);
    expect(page.unread).toBe(1);
    const [e] = page.data;
    expect(e).toMatchObject({ source: 'action', user_id: alice.id, token_id: token.uuid, action_type: 'javascript', read: false, schedule_id: null });
    expect(e.message).toContain('boom in the chain');
    expect(e.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const latest = await s.call('GET', `/token/${token.uuid}/request/latest`, { key: alice.key });
    expect(e.request_id).toBe(latest.data.uuid);
    expect(e.action_id).toBe((await s.call('GET', `/token/${token.uuid}/actions`, { key: alice.key })).data.data[0].uuid);
    // The same envelope as the other lists.
    expect(page).toMatchObject({ current_page: 1, per_page: 50, last_page: 1, from: 1, to: 1 });
  });

  it('records a failed schedule run with the schedule', async () => {
    // The target answers, but not what the check requires (and runs no actions of its own).
    const target = await s.token({}, alice.key);
    const created = await s.call('POST', '/schedules', {
      key: alice.key,
      json: { name: 'Nightly health', interval: 'hourly', request_method: 'GET', request_url: `${s.url}/${target.uuid}/health`, timeout: 5, require_body: 'all good' },
    });
    expect(created.status).toBe(200);
    expect((await s.call('POST', `/schedules/${created.data.id}/run-now`, { key: alice.key })).status).toBe(200);
    const page = await waitForErrors(alice.key, 'source=schedule', 1);
    expect(page.data[0]).toMatchObject({ source: 'schedule', schedule_id: created.data.id, schedule_name: 'Nightly health', token_id: null, action_type: null });
    expect(page.data[0].message).toMatch(/Check failed/);
  });

  it('searches and filters', async () => {
    const byText = await s.call('GET', '/errors?query=NIGHTLY', { key: alice.key });
    expect(byText.data.data.map((e: any) => e.source)).toEqual(['schedule']);
    expect((await s.call('GET', '/errors?query=boom', { key: alice.key })).data.data.map((e: any) => e.source)).toEqual(['action']);
    expect((await s.call('GET', `/errors?token_id=${token.uuid}`, { key: alice.key })).data.total).toBe(1);
    expect((await s.call('GET', '/errors?query=nothing-like-this', { key: alice.key })).data.total).toBe(0);
    const all = await s.call('GET', '/errors', { key: alice.key });
    expect(all.data.data.map((e: any) => e.source)).toEqual(['schedule', 'action']);
  });

  it('marks entries read up to the newest seen, leaving newer ones unread', async () => {
    const seen = (await s.call('GET', '/errors', { key: alice.key })).data;
    expect((await s.call('GET', '/errors/unread', { key: alice.key })).data).toEqual({ unread: 2 });
    await fetch(`${s.url}/${token.uuid}/hook`, { method: 'POST', body: 'again' });
    await waitForErrors(alice.key, 'source=action', 2);
    const marked = await s.call('POST', '/errors/read', { key: alice.key, json: { up_to: seen.data[0].id } });
    expect(marked.data).toEqual({ marked: 2, unread: 1 });
    const unread = await s.call('GET', '/errors?unread=true', { key: alice.key });
    expect(unread.data.data).toHaveLength(1);
    expect(unread.data.data[0].id).toBeGreaterThan(seen.data[0].id);
    expect((await s.call('POST', '/errors/read', { key: alice.key, json: {} })).data).toEqual({ marked: 1, unread: 0 });
  });

  it("keeps accounts apart; the administrator sees every account's or one", async () => {
    expect((await s.call('GET', '/errors', { key: bob.key })).data.total).toBe(0);
    expect((await s.call('GET', '/errors/unread', { key: bob.key })).data.unread).toBe(0);
    expect((await s.call('POST', '/errors/read', { key: bob.key, json: {} })).data.marked).toBe(0);
    expect((await s.call('GET', `/errors?user_id=${alice.id}`, { key: bob.key })).status).toBe(403);
    expect((await s.call('GET', '/errors', { key: ADMIN_KEY })).data.total).toBe(3);
    expect((await s.call('GET', `/errors?user_id=${alice.id}`, { key: ADMIN_KEY })).data.total).toBe(3);
    expect((await s.call('GET', `/errors?user_id=${bob.id}`, { key: ADMIN_KEY })).data.total).toBe(0);
    expect((await s.call('GET', '/errors')).status).toBe(401);
  });

  it("an anonymous token's errors go to the anonymous account, which only the administrator reads", async () => {
    const anon = await s.token({ actions: true });
    await s.call('POST', `/token/${anon.uuid}/actions`, { json: { order: 1, type: 'javascript', parameters: { script: "throw new Error('anonymous boom')" } } });
    await fetch(`${s.url}/${anon.uuid}/x`, { method: 'POST', body: 'x' });
    const page = await waitForErrors(ADMIN_KEY, 'user_id=anonymous', 1);
    expect(page.data[0]).toMatchObject({ user_id: null, token_id: anon.uuid });
    expect((await s.call('GET', '/errors?query=anonymous', { key: alice.key })).data.total).toBe(0);
  });

  it('records the errors of queued actions, run later by the job queue', async () => {
    const queued = await s.token({ actions: true }, bob.key);
    const add = await s.call('POST', `/token/${queued.uuid}/actions`, {
      key: bob.key,
      json: { order: 1, type: 'javascript', queue: true, delay: 1, parameters: { script: "throw new Error('queued boom')" } },
    });
    expect(add.status).toBe(200);
    await fetch(`${s.url}/${queued.uuid}/later`, { method: 'POST', body: 'x' });
    const page = await waitForErrors(bob.key, 'query=queued', 1);
    expect(page.data[0]).toMatchObject({ source: 'action', token_id: queued.uuid, action_type: 'javascript', user_id: bob.id });
    expect(page.data[0].message).toContain('queued boom');
    // Bob's entry is his alone.
    expect((await s.call('GET', '/errors?query=queued', { key: alice.key })).data.total).toBe(0);
  });

  it('bad input answers 422 and changes nothing', async () => {
    const before = (await s.call('GET', '/errors', { key: alice.key })).data.total;
    for (const q of ['per_page=101', 'per_page=0', 'page=0', 'unread=maybe', 'source=other', 'schedule_id=x', `query=${'a'.repeat(501)}`, 'user_id=-1']) {
      const r = await s.call('GET', `/errors?${q}`, { key: alice.key });
      expect(r.status, q).toBe(422);
      expect(r.data.errors, q).toBeTruthy();
    }
    for (const body of [{ ids: 'all' }, { ids: [0] }, { up_to: 'x' }, { ids: Array.from({ length: 1001 }, (_, i) => i + 1) }]) {
      expect((await s.call('POST', '/errors/read', { key: alice.key, json: body })).status, JSON.stringify(body).slice(0, 40)).toBe(422);
    }
    expect((await s.call('POST', '/errors/read', { key: alice.key, body: '{not json', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await s.call('GET', '/errors', { key: alice.key })).data.total).toBe(before);
  });
});

describe('error log: actions switched off', () => {
  let srv: TestServer;
  afterAll(async () => {
    await srv?.close();
  });

  it('an action disabled after failing on captures in a row gets an entry saying so', async () => {
    srv = await startTestServer({ ACTION_DISABLE_AFTER_FAILURES: '2' });
    const user = await srv.user(false);
    const t = await srv.token({ actions: true }, user.key);
    const add = await srv.call('POST', `/token/${t.uuid}/actions`, { key: user.key, json: { order: 1, type: 'javascript', parameters: { script: "throw new Error('flaky')" } } });
    expect(add.status).toBe(200);
    const actionId = add.data.uuid as string;
    expect(actionId).toMatch(/^[0-9a-f-]{36}$/);
    for (let i = 0; i < 2; i++) await fetch(`${srv.url}/${t.uuid}/hook`, { method: 'POST', body: String(i) });
    const deadline = Date.now() + 10_000;
    let page: any;
    do {
      page = (await srv.call('GET', '/errors?query=disabled', { key: user.key })).data;
      if (page.total) break;
      await new Promise((done) => setTimeout(done, 50));
    } while (Date.now() < deadline);
    expect(page.total).toBe(1);
    expect(page.data[0]).toMatchObject({ source: 'action', token_id: t.uuid, action_type: 'javascript' });
    expect(page.data[0].action_id).toBe(actionId);
    expect(page.data[0].message).toMatch(/failed on 2 captures in a row and was disabled/);
    expect((await srv.call('GET', '/errors?query=flaky', { key: user.key })).data.total).toBe(2);
  });

  it('a Log action marked as an error is recorded on the request and in the error log', async () => {
    const user = await srv.user(false);
    const t = await srv.token({ actions: true }, user.key);
    const add = await srv.call('POST', `/token/${t.uuid}/actions`, { key: user.key, json: { order: 1, type: 'log', parameters: { text: 'no customer for $request.method$', error: true } } });
    expect(add.status).toBe(200);
    await fetch(`${srv.url}/${t.uuid}/hook`, { method: 'PUT', body: 'x' });
    const deadline = Date.now() + 10_000;
    let page: any;
    do {
      page = (await srv.call('GET', '/errors', { key: user.key })).data;
      if (page.total) break;
      await new Promise((done) => setTimeout(done, 50));
    } while (Date.now() < deadline);
    expect(page.data[0]).toMatchObject({ source: 'action', token_id: t.uuid, action_type: 'log', action_id: add.data.uuid, message: 'no customer for PUT' });
    const latest = (await srv.call('GET', `/token/${t.uuid}/request/latest`, { key: user.key })).data;
    expect(latest.custom_action_errors).toEqual([expect.objectContaining({ message: 'no customer for PUT' })]);
  });
});
