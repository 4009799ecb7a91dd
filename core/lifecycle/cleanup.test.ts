import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { cleanupTokens, INACTIVITY_MS, STALE_LISTENER_MS, sweepExpired } from './cleanup.js';

let now = Date.parse('2026-01-01T00:00:00Z');
const clock = { now: () => now };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({}, { clock });
});
afterAll(() => s.close());

const exists = async (uuid: string) => (await s.services.store.tokens.get(uuid)) !== null;
const run = () => cleanupTokens(s.services.store, s.services.tokens, clock);

describe('token retention', () => {
  it('deletes a token with its requests when expires_at is reached, not before', async () => {
    const p = await s.user(true);
    const t = await s.token({ expiry: 60 }, p.key);
    await s.call('POST', `/${t.uuid}`, { body: 'x' });
    now += 59_000;
    await run();
    expect(await exists(t.uuid)).toBe(true);
    now += 1_000;
    expect((await s.call('POST', `/${t.uuid}`, { body: 'late' })).status).toBe(404);
    await run();
    expect(await exists(t.uuid)).toBe(false);
    expect((await s.services.store.requests.list(t.uuid, { page: 1, perPage: 10, sorting: 'oldest' })).total).toBe(0);
  });

  it('deletes inactive non-premium and legacy expiry:true tokens after a week, keeps active and premium ones', async () => {
    const p = await s.user(true);
    const freeUser = await s.user(false);
    const idle = await s.token({}, freeUser.key);
    const busy = await s.token({}, freeUser.key);
    const premium = await s.token({}, p.key);
    const legacy = await s.token({ expiry: true }, p.key);
    expect(legacy.expiry).toBe(true);
    now += INACTIVITY_MS - 60_000;
    await s.call('POST', `/${busy.uuid}`, { body: 'still here' });
    now += 120_000;
    // Free tokens also carry the one-week expires_at; make `busy` outlive it to test inactivity alone.
    await s.services.store.tokens.update(busy.uuid, { expires_at: null });
    await s.services.store.tokens.update(idle.uuid, { expires_at: null });
    const counts = await run();
    expect(await exists(idle.uuid)).toBe(false);
    expect(await exists(legacy.uuid)).toBe(false);
    expect(await exists(busy.uuid)).toBe(true);
    expect(await exists(premium.uuid)).toBe(true);
    expect(counts.inactive).toBeGreaterThanOrEqual(2);
    expect(await run()).toEqual({ expired: 0, inactive: 0 });
  });
});

describe('expired short-lived records (nothing depends on a TTL monitor)', () => {
  it('sweeps rate-limit windows past their time and set-response waits a minute past their deadline', async () => {
    const store = s.services.store;
    const t = await s.token();
    const resp = { status: 200, content: '', headers: {} };
    const [past, future] = [now - 120_000, now + 3_600_000];
    await store.counters.hit('sweep-test', past, 60_000);
    await store.counters.hit('sweep-test', future, 60_000);
    await store.listeners.open('sweep-stale', t.uuid, now + 1_000);
    await store.listeners.open('sweep-waiting', t.uuid, future);
    await store.listeners.respond(t.uuid, 'sweep-stale', resp, now);
    await store.listeners.respond(t.uuid, 'sweep-waiting', resp, now);
    now += 1_000 + STALE_LISTENER_MS + 1;
    const swept = await sweepExpired(store, clock);
    expect(swept.counters).toBeGreaterThanOrEqual(1);
    expect(swept.listeners).toBe(1);
    expect(await store.counters.peek('sweep-test', past)).toBe(0);
    expect(await store.counters.peek('sweep-test', future)).toBe(1);
    expect(await store.listeners.poll('sweep-stale')).toBeNull();
    expect(await store.listeners.poll('sweep-waiting')).toEqual(resp);
  });
});
