// The OAuth helper against a token endpoint and an API on a local node:http server, with the
// in-memory providers of packages/sdk/src/testing.ts standing in for the store.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Providers } from './index.js';
import { expiryMs, forgetOAuthRenewals, openOAuthAccount, type OAuthContext, type OAuthProviderKind } from './oauth.js';
import { fetchHttpClient } from './testing.js';
import { fakeClock, memoryProviders, testServices, type FakeClock } from './testing.js';

const APP = { refresh_token: 'rt-1', client_id: 'app', client_secret: 'shh' };

/** How the token endpoint answers the next grants. */
let answer: 'ok' | 'no-expiry' | 'rotate' | 'unusable' | 'refuse' | 'broken' | 'redirect' = 'ok';
/** Forms the token endpoint received. */
let grants: Array<Record<string, string>> = [];
/** Bearer tokens the API accepts, and what it was sent. */
let valid = new Set<string>();
let apiCalls: string[] = [];
/** Held token answers (to renew concurrently). */
let hold: Promise<void> | undefined;

let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url === '/token') {
        const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        grants.push(form);
        if (hold) await hold;
        const token = `at-new-${grants.length}`;
        if (answer === 'refuse') return send(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        if (answer === 'broken') return send(500, 'upstream down');
        if (answer === 'redirect') return send(302, '', { location: `${origin}/token-elsewhere` });
        if (answer === 'unusable') return send(200, { access_token: token, expires_in: 3600 });
        valid.add(token);
        if (answer === 'no-expiry') return send(200, { access_token: token, token_type: 'bearer' });
        if (answer === 'rotate') return send(200, { access_token: token, expires_in: 3600, refresh_token: 'rt-2' });
        return send(200, { access_token: token, token_type: 'bearer', expires_in: 3600 });
      }
      if (req.url === '/token-elsewhere') {
        grants.push({ redirected: 'yes' });
        return send(200, { access_token: 'stolen', expires_in: 3600 });
      }
      if (req.url === '/api') {
        const auth = req.headers.authorization ?? '';
        apiCalls.push(auth);
        return valid.has(auth.replace(/^Bearer /, '')) ? send(200, { ok: true }) : send(401, { error: 'invalid_token' });
      }
      send(404, 'not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  answer = 'ok';
  grants = [];
  valid = new Set(['at-good']);
  apiCalls = [];
  hold = undefined;
  forgetOAuthRenewals();
});

const kind = (): OAuthProviderKind => ({ type: 'example', title: 'Example', tokenUrl: (p) => String(p.settings.token_url) });

function setup(credentials: Record<string, unknown>, opts: { providers?: Providers; clock?: FakeClock } = {}) {
  const clock = opts.clock ?? fakeClock();
  const providers =
    opts.providers ??
    memoryProviders([
      { id: 'p1', type: 'example', credentials, settings: { token_url: `${origin}/token` } },
      { id: 'p2', type: 'other', credentials: {} },
    ]);
  const lines: string[] = [];
  const ctx: OAuthContext = { services: testServices({ http: fetchHttpClient, providers, clock }), signal: new AbortController().signal, log: (line) => void lines.push(line) };
  const open = () => openOAuthAccount(ctx, 'p1', kind());
  const call = async () => (await open()).send({ method: 'GET', url: `${origin}/api` });
  const stored = async () => (await providers.get('p1', 'example')).credentials;
  return { clock, providers, lines, ctx, open, call, stored };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

describe('the OAuth account', () => {
  it('sends a valid token as a Bearer and renews nothing', async () => {
    const t = setup({ access_token: 'at-good', expires_at: '2030-01-01T00:00:00Z', ...APP });
    expect((await t.call()).status).toBe(200);
    expect(apiCalls).toEqual(['Bearer at-good']);
    expect(grants).toEqual([]);
    expect(t.lines).toEqual([]);
  });

  it('renews a rejected token, retries, and saves the new token and its expiry with saveCredentials', async () => {
    const t = setup({ access_token: 'at-old', ...APP });
    expect((await t.call()).status).toBe(200);
    expect(apiCalls).toEqual(['Bearer at-old', 'Bearer at-new-1']);
    expect(grants).toEqual([{ grant_type: 'refresh_token', ...APP }]);
    expect(await t.stored()).toEqual({ ...APP, access_token: 'at-new-1', expires_at: seconds(t.clock.now()) + 3600 });
    expect(t.lines).toEqual(['Renewed the Example access token and saved it to Example provider p1']);

    // Another process (nothing in memory) or a later run reads the renewed token from the provider.
    forgetOAuthRenewals();
    apiCalls = [];
    expect((await t.call()).status).toBe(200);
    expect(apiCalls).toEqual(['Bearer at-new-1']);
    expect(grants).toHaveLength(1);
  });

  it('renews before calling when expires_at has passed or is less than a minute away, in any of its forms', async () => {
    const clock = fakeClock();
    for (const expires_at of [seconds(clock.now()) - 10, clock.now() + 30_000, new Date(clock.now() - 1000).toISOString()]) {
      forgetOAuthRenewals();
      apiCalls = [];
      const t = setup({ access_token: 'at-good', expires_at, ...APP }, { clock });
      expect((await t.call()).status).toBe(200);
      expect(apiCalls).toEqual([`Bearer at-new-${grants.length}`]);
      expect(await t.stored()).toMatchObject({ access_token: `at-new-${grants.length}`, expires_at: seconds(clock.now()) + 3600 });
    }
    expect(grants).toHaveLength(3);
  });

  it('respects a saved expires_at: no renewal until the renewed token is about to expire', async () => {
    const t = setup({ access_token: 'at-old', expires_at: 1, ...APP });
    await t.call();
    expect(grants).toHaveLength(1);
    forgetOAuthRenewals();
    t.clock.advance(3600_000 - 61_000); // 61 s before the saved expiry
    await t.call();
    expect(grants).toHaveLength(1);
    forgetOAuthRenewals();
    t.clock.advance(2_000); // 59 s before it
    await t.call();
    expect(grants).toHaveLength(2);
    expect(await t.stored()).toMatchObject({ access_token: 'at-new-2', expires_at: seconds(t.clock.now()) + 3600 });
  });

  it('saves a rotated refresh token, and drops expires_at when the endpoint gives no expires_in', async () => {
    answer = 'rotate';
    const rotated = setup({ access_token: 'at-old', ...APP });
    await rotated.call();
    expect(await rotated.stored()).toMatchObject({ access_token: 'at-new-1', refresh_token: 'rt-2' });

    forgetOAuthRenewals();
    answer = 'no-expiry';
    const t = setup({ access_token: 'at-old', expires_at: 1, ...APP });
    await t.call();
    expect(await t.stored()).toEqual({ ...APP, access_token: 'at-new-2' });
  });

  it('sends the scope when the provider type asks for one', async () => {
    const t = setup({ access_token: 'at-old', ...APP });
    const account = await openOAuthAccount(t.ctx, 'p1', { ...kind(), scope: 'offline_access Files.ReadWrite' });
    await account.send({ method: 'GET', url: `${origin}/api` });
    expect(grants).toEqual([{ grant_type: 'refresh_token', ...APP, scope: 'offline_access Files.ReadWrite' }]);
  });

  it('a refused renewal is a clear error, saves nothing, and is tried again by the next action', async () => {
    answer = 'refuse';
    const t = setup({ access_token: 'at-old', ...APP });
    await expect(t.call()).rejects.toThrow('Could not renew the Example access token of Example provider p1 (invalid_grant: Token has been expired or revoked.); reconnect the account');
    expect(await t.stored()).toEqual({ access_token: 'at-old', ...APP });
    answer = 'broken';
    await expect(t.call()).rejects.toThrow('Could not renew the Example access token of Example provider p1 (HTTP 500: upstream down); reconnect the account');
    expect(grants).toHaveLength(2);
  });

  it('does not follow a redirect with the refresh token', async () => {
    answer = 'redirect';
    const t = setup({ access_token: 'at-old', ...APP });
    await expect(t.call()).rejects.toThrow(/^Could not renew the Example access token of Example provider p1 \(HTTP 302\)/);
    expect(grants).toHaveLength(1);
  });

  it('without refresh_token or client_id there is no renewal: the 401 is returned with a hint', async () => {
    for (const credentials of [{ access_token: 'at-old' }, { access_token: 'at-old', refresh_token: 'rt-1' }, { access_token: 'at-old', client_id: 'app', expires_at: 1 }]) {
      const t = setup(credentials);
      const account = await t.open();
      expect(account.canRenew).toBe(false);
      expect((await account.send({ method: 'GET', url: `${origin}/api` })).status).toBe(401);
      expect(account.unauthorizedHint()).toBe('the access token was rejected and cannot be renewed: update Example provider p1 with a new access_token, or add refresh_token, client_id and client_secret');
    }
    expect(grants).toEqual([]);
    expect(apiCalls).toEqual(['Bearer at-old', 'Bearer at-old', 'Bearer at-old']);
  });

  it('renews at most once per action: a token rejected after renewal is returned as a 401', async () => {
    const t = setup({ access_token: 'at-old', ...APP });
    answer = 'unusable'; // the API rejects the renewed token too
    const account = await t.open();
    expect((await account.send({ method: 'GET', url: `${origin}/api` })).status).toBe(401);
    expect((await account.send({ method: 'GET', url: `${origin}/api` })).status).toBe(401);
    expect(grants).toHaveLength(1);
    expect(account.unauthorizedHint()).toBe('the access token was rejected even after renewing it: reconnect the Example account');
  });

  it('actions renewing the same account at once share one renewal', async () => {
    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    const t = setup({ access_token: 'at-old', expires_at: 1, ...APP });
    const [a, b] = await Promise.all([t.open(), t.open()]);
    const both = Promise.all([a.send({ method: 'GET', url: `${origin}/api` }), b.send({ method: 'GET', url: `${origin}/api` })]);
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect((await both).map((r) => r.status)).toEqual([200, 200]);
    expect(grants).toHaveLength(1);
    expect(apiCalls).toEqual(['Bearer at-new-1', 'Bearer at-new-1']);
    expect(t.lines.sort()).toEqual(['Renewed the Example access token and saved it to Example provider p1', 'Used the Example access token renewed moments ago in this process']);
  });

  it('a renewed token that cannot be saved is still used, and said so', async () => {
    const inner = memoryProviders([{ id: 'p1', type: 'example', credentials: { access_token: 'at-old', ...APP }, settings: { token_url: `${origin}/token` } }]);
    const providers: Providers = {
      get: (id, types) => inner.get(id, types),
      saveCredentials: async () => {
        throw new Error('the store is read-only');
      },
    };
    const t = setup({}, { providers });
    expect((await t.call()).status).toBe(200);
    expect(apiCalls).toEqual(['Bearer at-old', 'Bearer at-new-1']);
    expect(t.lines).toEqual(['Renewed the Example access token, but could not save it to Example provider p1 (the store is read-only); it is used for this action only']);
    expect(await t.stored()).toEqual({ access_token: 'at-old', ...APP });
  });

  it('a missing provider, one of another type, or one without usable credentials is a clear error', async () => {
    const t = setup({ client_id: 'app' });
    await expect(t.call()).rejects.toThrow('Example provider p1 has no usable credentials: access_token give access_token, or refresh_token with client_id');
    await expect(openOAuthAccount(t.ctx, 'p9', kind())).rejects.toThrow('Provider p9 not found');
    await expect(openOAuthAccount(t.ctx, 'p2', kind())).rejects.toThrow('Provider p2 is a other account, not example');
    expect(apiCalls).toEqual([]);
  });
});

describe('expiryMs', () => {
  it('reads epoch seconds, epoch milliseconds and ISO dates', () => {
    expect(expiryMs(1_700_000_000)).toBe(1_700_000_000_000);
    expect(expiryMs('1700000000')).toBe(1_700_000_000_000);
    expect(expiryMs(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(expiryMs('2024-01-02T03:04:05Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(expiryMs('soon')).toBeUndefined();
    expect(expiryMs(undefined)).toBeUndefined();
  });
});
