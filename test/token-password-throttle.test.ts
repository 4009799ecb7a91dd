// Guessing a token password is throttled and never stalls the service: wrong passwords count per
// token and per client address in minute windows of the store's counters (so instances on one
// store count together); at a limit every password there, the right one too, is a 429 with
// Retry-After until the minute is over. scrypt runs off the event loop, so captures are answered
// while password checks are pending. The clock is the test's; client addresses come as
// X-Forwarded-For from a trusted proxy (the loopback peer).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const PASSWORD = 'the right one';
/** 12:00:10 UTC: the minute's window has 50 s left. */
const START = Date.UTC(2026, 0, 1, 12, 0, 10);

const from = (address: string) => ({ 'X-Forwarded-For': address });
const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`u:${password}`).toString('base64')}` });

/** A token of `key`'s with the password set. */
async function protectedToken(s: TestServer, key: string): Promise<string> {
  const t = (await s.token({}, key)).uuid as string;
  const r = await s.call('PUT', `/token/${t}/password`, { key, json: { password: PASSWORD, old_password: '' } });
  expect(r.status, r.text).toBe(200);
  return t;
}

const read = (s: TestServer, token: string, password: string, address: string) => s.call('GET', `/token/${token}/requests?password=${encodeURIComponent(password)}`, { headers: from(address) });

describe('wrong token passwords are throttled', () => {
  let now = START;
  let s: TestServer;
  let owner: { id: number; key: string };
  beforeAll(async () => {
    s = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1' }, { clock: { now: () => now } });
    owner = await s.user(true);
  });
  afterAll(() => s?.close());

  it('per token: 10 wrong a minute from any addresses, then 429 with Retry-After for every password until the minute is over', async () => {
    now = START;
    const t = await protectedToken(s, owner.key);
    const other = await protectedToken(s, owner.key);
    for (let i = 1; i <= 10; i++) expect((await read(s, t, 'wrong', `198.51.100.${i}`)).status).toBe(401);
    const refused = await read(s, t, 'wrong', '198.51.100.11');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.data.message).toMatch(/Too many wrong passwords for this token: at most 10 a minute/);
    // The right password too, by query or Basic, from an address that never guessed.
    expect((await read(s, t, PASSWORD, '198.51.100.12')).status).toBe(429);
    expect((await s.call('GET', `/token/${t}/requests`, { headers: { ...from('198.51.100.12'), ...basic(PASSWORD) } })).status).toBe(429);
    // The owner's key is not a password; another token is not this one.
    expect((await s.call('GET', `/token/${t}/requests`, { key: owner.key })).status).toBe(200);
    expect((await read(s, other, PASSWORD, '198.51.100.12')).status).toBe(200);

    now += 49_999;
    expect((await read(s, t, PASSWORD, '198.51.100.12')).headers.get('retry-after')).toBe('1');
    now += 1;
    expect((await read(s, t, PASSWORD, '198.51.100.12')).status).toBe(200);
    expect((await read(s, t, 'wrong', '198.51.100.13')).status).toBe(401);
  });

  it('per address: 20 wrong a minute to any tokens, then 429 for that address (an IPv6 /64) only', async () => {
    now = START + 60_000;
    const tokens = [await protectedToken(s, owner.key), await protectedToken(s, owner.key), await protectedToken(s, owner.key)];
    const fresh = await protectedToken(s, owner.key);
    // Under each token's limit of 10, from addresses of one /64.
    for (let i = 0; i < 20; i++) expect((await read(s, tokens[i % 3]!, 'wrong', `2001:db8:1:2::${i + 1}`)).status).toBe(401);
    const refused = await read(s, fresh, PASSWORD, '2001:db8:1:2:ffff::1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.data.message).toMatch(/Too many wrong passwords for your address: at most 20 a minute/);
    // Another address opens the same tokens.
    expect((await read(s, fresh, PASSWORD, '2001:db8:1:3::1')).status).toBe(200);
    expect((await read(s, tokens[0]!, PASSWORD, '203.0.113.1')).status).toBe(200);
    now += 50_000;
    expect((await read(s, fresh, PASSWORD, '2001:db8:1:2::1')).status).toBe(200);
  });

  it('guesses sent all at once are held to the limit: 10 are checked, the others get 429', async () => {
    now = START + 120_000;
    const t = await protectedToken(s, owner.key);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => read(s, t, `wrong-${i}`, `192.0.2.${i + 1}`)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array<number>(10).fill(401), ...Array<number>(20).fill(429)]);
  });

  it('a wrong old_password when changing the password counts too', async () => {
    now = START + 180_000;
    const t = await protectedToken(s, owner.key);
    for (let i = 0; i < 10; i++) {
      expect((await s.call('PUT', `/token/${t}/password`, { key: owner.key, headers: from('198.51.100.200'), json: { password: 'new', old_password: 'guess' } })).status).toBe(422);
    }
    expect((await s.call('PUT', `/token/${t}/password`, { key: owner.key, headers: from('198.51.100.201'), json: { password: 'new', old_password: PASSWORD } })).status).toBe(429);
  });
});

describe('two instances on one store', () => {
  let now = START;
  const clock = { now: () => now };
  let dir: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'password-throttle-'));
    a = await startTestServer({ DATA_DIR: dir, TOKEN_PASSWORD_FAILURES_PER_MIN: '4' }, { clock });
    b = await startTestServer({ DATA_DIR: dir, TOKEN_PASSWORD_FAILURES_PER_MIN: '4' }, { clock });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('count wrong passwords together', async () => {
    const owner = await a.user(true);
    const t = await protectedToken(a, owner.key);
    const statuses: number[] = [];
    for (const s of [a, b, a, b, a, b]) statuses.push((await read(s, t, 'wrong', '127.0.0.1')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect((await read(b, t, PASSWORD, '127.0.0.1')).status).toBe(429);
    now += 60_000;
    expect((await read(b, t, PASSWORD, '127.0.0.1')).status).toBe(200);
  });
});

describe('password checks run off the event loop', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ TOKEN_PASSWORD_FAILURES_PER_MIN: '1000', TOKEN_PASSWORD_FAILURES_PER_MIN_PER_ADDRESS: '1000' });
  });
  afterAll(() => s?.close());

  it('a capture to another token is answered while 20 wrong-password checks are pending', async () => {
    const owner = await s.user(true);
    const guessed = await protectedToken(s, owner.key);
    const captured = (await s.token({}, owner.key)).uuid as string;
    // Counts the checks as they start and end (the real check runs).
    const passwords = s.services.tokens.passwords;
    const check = passwords.check.bind(passwords);
    let started = 0;
    let ended = 0;
    passwords.check = async (...args) => {
      started++;
      try {
        return await check(...args);
      } finally {
        ended++;
      }
    };
    const guesses = Array.from({ length: 20 }, (_, i) => read(s, guessed, `wrong-${i}`, '127.0.0.1'));
    while (started < 20) await new Promise((r) => setTimeout(r, 1));

    const capture = await s.call('POST', `/${captured}`, { body: 'while guessing' });
    const endedAtCapture = ended;
    expect(capture.status).toBe(200);
    expect(endedAtCapture).toBeLessThan(20);
    expect((await Promise.all(guesses)).map((r) => r.status)).toEqual(Array<number>(20).fill(401));
    expect((await s.call('GET', `/token/${captured}/requests`, { key: owner.key })).data.total).toBe(1);
  }, 60_000);
});
