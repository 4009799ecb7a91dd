// GET /token/{id}/requests/wait through the running service: stored matches, matches that arrive
// later (HTTP and e-mail), `after`, timeouts, validation, access, disconnects and many waiters.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { createMailModule } from '../../mail/module.js';
import { createRealtimeModule } from '../../realtime/module.js';
import { BUS, MAIL_INFO, WAITERS } from '../../service-keys.js';

const DOMAIN = 'wait.test.internal';
let s: TestServer;
let smtpPort: number;

beforeAll(async () => {
  const noDns = async () => {
    throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' });
  };
  s = await startTestServer({ EMAIL_DOMAIN: DOMAIN }, { modules: [createMailModule({ resolver: noDns }), createRealtimeModule({ socketIo: false })] });
  smtpPort = s.provided.get(MAIL_INFO)!.port!;
});
afterAll(() => s.close());

const waiters = () => s.provided.get(WAITERS)!;
const bus = () => s.provided.get(BUS)!;

function waitUrl(tokenId: string, params: Record<string, string> = {}) {
  return `/token/${tokenId}/requests/wait?${new URLSearchParams(params)}`;
}

/** Resolves once `n` callers wait on the token (the route checked the store and subscribed). */
async function waitersReady(tokenId: string, n: number) {
  const until = Date.now() + 5000;
  while (waiters().count(tokenId) < n) {
    if (Date.now() > until) throw new Error(`only ${waiters().count(tokenId)} of ${n} waiters`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function capture(tokenId: string, body: string, method = 'POST') {
  const r = await s.call(method, `/${tokenId}`, { body });
  expect(r.status).toBe(200);
  return (await s.call('GET', `/token/${tokenId}/request/latest`)).data;
}

describe('waiting for a request', () => {
  it('answers at once with an already stored match, in the shape of GET /request/{id}', async () => {
    const t = await s.token();
    await capture(t.uuid, 'order created');
    const stored = await capture(t.uuid, 'order paid');
    await capture(t.uuid, 'something else');
    const started = Date.now();
    const r = await s.call('GET', waitUrl(t.uuid, { query: 'content:order' }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(r.status).toBe(200);
    expect(r.data).toEqual((await s.call('GET', `/token/${t.uuid}/request/${stored.uuid}`)).data);
  });

  it('wakes a waiter when a match arrives, and not for a capture that does not match', async () => {
    const t = await s.token();
    const waiting = s.call('GET', waitUrl(t.uuid, { query: 'method:PUT AND content:ready', timeout: '10' }));
    await waitersReady(t.uuid, 1);
    await capture(t.uuid, 'ready', 'POST');
    await capture(t.uuid, 'not yet', 'PUT');
    await new Promise((r) => setTimeout(r, 100));
    expect(waiters().count(t.uuid)).toBe(1);
    const match = await capture(t.uuid, 'ready', 'PUT');
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ uuid: match.uuid, method: 'PUT', content: 'ready' });
  });

  it('without a query, any new capture wakes the waiter', async () => {
    const t = await s.token();
    const first = await capture(t.uuid, 'old');
    const waiting = s.call('GET', waitUrl(t.uuid, { after: String(first.sorting), timeout: '10' }));
    await waitersReady(t.uuid, 1);
    const next = await capture(t.uuid, 'new');
    expect((await waiting).data.uuid).toBe(next.uuid);
  });

  it('`after` excludes the named request and older ones, by sorting key and by UUID', async () => {
    const t = await s.token();
    const a = await capture(t.uuid, 'hit a');
    const b = await capture(t.uuid, 'hit b');
    const bySorting = await s.call('GET', waitUrl(t.uuid, { query: 'hit', after: String(a.sorting) }));
    expect(bySorting.data.uuid).toBe(b.uuid);

    const waiting = s.call('GET', waitUrl(t.uuid, { query: 'hit', after: b.uuid, timeout: '10' }));
    await waitersReady(t.uuid, 1);
    const c = await capture(t.uuid, 'hit c');
    expect((await waiting).data.uuid).toBe(c.uuid);
  });

  it('answers 408 with a JSON error when nothing matches in time, and leaves no listener', async () => {
    const t = await s.token();
    await capture(t.uuid, 'no');
    const started = Date.now();
    const r = await s.call('GET', waitUrl(t.uuid, { query: 'yes', timeout: '1' }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(r.status).toBe(408);
    expect(r.data.message).toMatch(/No matching request arrived within 1 s/);
    expect(waiters().count(t.uuid)).toBe(0);
    expect(bus().subscriberCount(t.uuid)).toBe(0);
  });

  it('an e-mail capture wakes a waiter', async () => {
    const t = await s.token();
    const waiting = s.call('GET', waitUrl(t.uuid, { query: 'type:email AND sender:alice', timeout: '20' }));
    await waitersReady(t.uuid, 1);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ from: 'alice@sender.test', to: `${t.uuid}@${DOMAIN}`, subject: 'Welcome', text: 'Confirm your address' });
    } finally {
      transport.close();
    }
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ type: 'email', token_id: t.uuid });
    expect(r.data.sender).toMatch(/alice@sender\.test/);
  });

  it('a client that hangs up stops waiting and its bus listener is removed', async () => {
    const t = await s.token();
    const hangUp = new AbortController();
    const waiting = fetch(s.url + waitUrl(t.uuid, { query: 'never', timeout: '30' }), { signal: hangUp.signal }).catch((e: Error) => e);
    await waitersReady(t.uuid, 1);
    expect(bus().subscriberCount(t.uuid)).toBe(1);
    hangUp.abort();
    expect(await waiting).toBeInstanceOf(Error);
    const until = Date.now() + 2000;
    while (waiters().count(t.uuid) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(waiters().count(t.uuid)).toBe(0);
    expect(bus().subscriberCount(t.uuid)).toBe(0);
  });

  it('a deleted token ends the wait with 404', async () => {
    const t = await s.token();
    const waiting = s.call('GET', waitUrl(t.uuid, { timeout: '10' }));
    await waitersReady(t.uuid, 1);
    expect((await s.call('DELETE', `/token/${t.uuid}`)).status).toBe(204);
    expect((await waiting).status).toBe(404);
    expect(bus().subscriberCount(t.uuid)).toBe(0);
  });

  it('200 concurrent waiters are all answered by one capture', async () => {
    const t = await s.token();
    const calls = Array.from({ length: 200 }, () => s.call('GET', waitUrl(t.uuid, { query: 'method:POST', timeout: '30' })));
    await waitersReady(t.uuid, 200);
    expect(bus().subscriberCount(t.uuid)).toBe(1);
    const metrics = (await s.call('GET', '/metrics')).text;
    expect(metrics).toMatch(/^capture_realtime_subscribers\{transport="wait"\} 200$/m);
    const match = await capture(t.uuid, 'for everyone');
    const answers = await Promise.all(calls);
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(new Set(answers.map((r) => r.data.uuid))).toEqual(new Set([match.uuid]));
    expect(waiters().count(t.uuid)).toBe(0);
    expect(bus().subscriberCount(t.uuid)).toBe(0);
  });
});

describe('validation and access', () => {
  it('names the position of a query syntax error', async () => {
    const t = await s.token();
    const r = await s.call('GET', waitUrl(t.uuid, { query: 'method:GET AND (' }));
    expect(r.status).toBe(422);
    expect(r.data.message).toMatch(/^query: .*position \d+/);
  });

  it.each([
    ['after', 'yesterday'],
    ['after', '00000000-0000-4000-8000-000000000000'],
    ['timeout', '61'],
    ['timeout', '-1'],
    ['timeout', 'soon'],
  ])('refuses %s=%s with 422 naming the field', async (field, value) => {
    const t = await s.token();
    const r = await s.call('GET', waitUrl(t.uuid, { [field]: value }));
    expect(r.status).toBe(422);
    expect(Object.keys(r.data.errors)).toEqual([field]);
  });

  it("answers 403 for another user's token and 401 without a protected token's password", async () => {
    const owner = await s.user(true);
    const other = await s.user(true);
    const t = await s.token({}, owner.key);
    await capture(t.uuid, 'private');
    expect((await s.call('GET', waitUrl(t.uuid, { timeout: '0' }), { key: other.key })).status).toBe(403);
    expect((await s.call('GET', waitUrl(t.uuid, { timeout: '0' }), { key: owner.key })).status).toBe(200);

    const locked = await s.token({}, owner.key);
    expect((await s.call('PUT', `/token/${locked.uuid}/password`, { key: owner.key, json: { password: 'pw' } })).status).toBe(200);
    expect((await s.call('GET', waitUrl(locked.uuid, { timeout: '0' }))).status).toBe(401);
    expect((await s.call('GET', `${waitUrl(locked.uuid, { timeout: '0' })}&password=pw`)).status).toBe(408);
    expect(waiters().count()).toBe(0);
  });
});
