// socket.io channel of the realtime module, with the v2 client the official CLI uses and a v4 one.
import ioV2 from 'socket.io-client-v2';
import { io as ioV4 } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealtimeModule } from '../core/realtime/module.js';
import { changeOwner, deleteUser, newKey, revokeKey } from './helpers/access-changes.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { BUS } from '../core/service-keys.js';

interface AnySocket {
  connected: boolean;
  on(event: string, fn: (...args: any[]) => void): unknown;
  once(event: string, fn: (...args: any[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  close(): unknown;
}

let server: TestServer;
const sockets: AnySocket[] = [];

const clients = {
  v2: (url: string, opts: Record<string, unknown> = {}) => ioV2(url, { reconnection: false, ...opts }) as AnySocket,
  v4: (url: string, opts: Record<string, unknown> = {}) => ioV4(url, { reconnection: false, ...opts }) as unknown as AnySocket,
};

function connect(version: keyof typeof clients, url = server.url, opts: Record<string, unknown> = {}): AnySocket {
  const s = clients[version](url, opts);
  sockets.push(s);
  return s;
}

/**
 * The next `event` on the socket, or a rejection after `ms`. A wait nobody awaits in the end (the
 * loser of a race, one kept for a later step) times out after its test, or its file, ended: it is
 * marked handled so that it cannot surface as an unhandled rejection in whatever runs then; an
 * awaiting caller still gets the rejection.
 */
function next(socket: AnySocket, event: string, ms = 5000): Promise<any[]> {
  const waiting = new Promise<any[]>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    socket.once(event, (...args: any[]) => {
      clearTimeout(t);
      resolve(args);
    });
  });
  waiting.catch(() => {});
  return waiting;
}

/** Subscribes like Laravel Echo's private channel; resolves with `subscribed` or `subscription_error`. */
async function subscribe(socket: AnySocket, channel: string, headers: Record<string, string> = {}) {
  const done = Promise.race([
    next(socket, 'subscribed').then((a) => ({ ok: true as const, channel: a[0] as string })),
    next(socket, 'subscription_error').then((a) => ({ ok: false as const, channel: a[0] as string, status: a[1] as number })),
  ]);
  socket.emit('subscribe', { channel, auth: { headers } });
  return done;
}

async function capture(tokenId: string, path = '/x/y?a=1') {
  const r = await server.call('POST', `/${tokenId}${path}`, { body: 'hello=world', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Custom': 'abc' } });
  expect(r.status).toBe(200);
  return r.headers.get('x-request-id')!;
}

const bus = () => server.provided.get(BUS)!;

beforeAll(async () => {
  server = await startTestServer({}, { modules: [createRealtimeModule()] });
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await server.close();
});

describe.each([
  ['v2', {}],
  ['v2', { transports: ['websocket'] }],
  ['v4', {}],
  ['v4', { transports: ['websocket'] }],
] as const)('socket.io-client %s %j', (version, opts) => {
  it('receives request.created (channel, {request, variables}) for a subscribed token', async () => {
    const token = await server.token();
    const socket = connect(version, server.url, opts);
    await next(socket, 'connect');
    const channel = `private-token.${token.uuid}`;
    expect(await subscribe(socket, channel)).toEqual({ ok: true, channel });

    const event = next(socket, 'request.created');
    const id = await capture(token.uuid);
    const [ch, data] = await event;
    expect(ch).toBe(channel);
    const api = await server.call('GET', `/token/${token.uuid}/request/${id}`);
    expect(data.request).toEqual(api.data);
    expect(data.request.method).toBe('POST');
    expect(data.request.content).toBe('hello=world');
    expect(data.request.request).toEqual({ hello: 'world' });
    expect(data.variables['request.method']).toBe('POST');
    expect(data.variables['request.path']).toBe('/x/y');
    expect(data.variables['request.query.a']).toBe('1');
    expect(data.variables['request.form.hello']).toBe('world');
    expect(data.variables['request.header.x-custom']).toBe('abc');
    expect(data.runtime_variables).toEqual(data.variables);
  });
});

describe('socket.io subscriptions', () => {
  it('checks the subscription like the token API: owner key, password, anonymous', async () => {
    const owner = await server.user(true);
    const stranger = await server.user(false);
    const owned = await server.token({}, owner.key);
    const socket = connect('v2');
    await next(socket, 'connect');
    const channel = `private-token.${owned.uuid}`;

    expect(await subscribe(socket, channel)).toEqual({ ok: false, channel, status: 401 });
    expect(await subscribe(socket, channel, { 'Api-Key': stranger.key })).toEqual({ ok: false, channel, status: 403 });
    expect(await subscribe(socket, channel, { 'Api-Key': 'not-a-key' })).toEqual({ ok: false, channel, status: 401 });
    expect(await subscribe(socket, 'private-token.00000000-0000-4000-8000-000000000000')).toMatchObject({ ok: false, status: 404 });
    expect(await subscribe(socket, 'presence-chat.1')).toMatchObject({ ok: false, status: 404 });
    expect(bus().subscriberCount(owned.uuid)).toBe(0);
    expect(await subscribe(socket, channel, { 'Api-Key': owner.key })).toEqual({ ok: true, channel });
    expect(bus().subscriberCount(owned.uuid)).toBe(1);

    const locked = await server.token({}, owner.key);
    expect((await server.call('PUT', `/token/${locked.uuid}/password`, { key: owner.key, json: { password: 'pw' } })).status).toBe(200);
    const lockedChannel = `private-token.${locked.uuid}`;
    expect(await subscribe(socket, lockedChannel)).toMatchObject({ ok: false, status: 401 });
    const basic = (pw: string) => 'Basic ' + Buffer.from(`x:${pw}`).toString('base64');
    expect(await subscribe(socket, lockedChannel, { Authorization: basic('wrong') })).toMatchObject({ ok: false, status: 401 });
    expect(await subscribe(socket, lockedChannel, { Authorization: basic('pw') })).toEqual({ ok: true, channel: lockedChannel });
  });

  it('stops sending after unsubscribe and on disconnect', async () => {
    const token = await server.token();
    const socket = connect('v4');
    await next(socket, 'connect');
    const channel = `private-token.${token.uuid}`;
    await subscribe(socket, channel);
    expect(bus().subscriberCount(token.uuid)).toBe(1);
    socket.emit('unsubscribe', { channel, auth: {} });
    await expect.poll(() => bus().subscriberCount(token.uuid)).toBe(0);
    let got = 0;
    socket.on('request.created', () => got++);
    await capture(token.uuid);
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toBe(0);

    await subscribe(socket, channel);
    expect(bus().subscriberCount(token.uuid)).toBe(1);
    socket.close();
    await expect.poll(() => bus().subscriberCount(token.uuid)).toBe(0);
  });

  it('also forwards request.deleted and token.updated on the channel', async () => {
    const token = await server.token();
    const socket = connect('v2');
    await next(socket, 'connect');
    const channel = `private-token.${token.uuid}`;
    await subscribe(socket, channel);
    const id = await capture(token.uuid);
    const deleted = next(socket, 'request.deleted');
    await server.call('DELETE', `/token/${token.uuid}/request/${id}`);
    expect(await deleted).toEqual([channel, { uuid: id }]);
    const updated = next(socket, 'token.updated');
    const put = await server.call('PUT', `/token/${token.uuid}`, { json: { default_status: 202 } });
    const [ch, data] = await updated;
    expect(ch).toBe(channel);
    expect(data.token).toEqual(put.data);
  });

  describe('revocation: subscription_error for the channel, the socket stays open for its other channels', () => {
    /** A socket subscribed to the token (`revoked`, by `headers`) and to an open token of its own (`kept`). */
    async function subscribed(tokenId: string, headers: Record<string, string>) {
      const socket = connect('v2');
      await next(socket, 'connect');
      const open = await server.token();
      const channel = `private-token.${tokenId}`;
      const other = `private-token.${open.uuid}`;
      expect(await subscribe(socket, channel, headers)).toEqual({ ok: true, channel });
      expect(await subscribe(socket, other)).toEqual({ ok: true, channel: other });
      const got: string[] = [];
      socket.on('request.created', (ch: string, data: any) => got.push(`${ch} ${data.request.uuid}`));
      const revoked = next(socket, 'subscription_error');
      return { socket, channel, other, open, got, revoked };
    }

    /** After the revocation: the channel gets nothing more, the socket's other channel still does. */
    async function onlyOtherChannel(s: Awaited<ReturnType<typeof subscribed>>, tokenId: string, status: number) {
      expect(await s.revoked).toEqual([s.channel, status]);
      expect(bus().subscriberCount(tokenId)).toBe(0);
      const lost = await capture(tokenId);
      const kept = await capture(s.open.uuid);
      await expect.poll(() => s.got).toContain(`${s.other} ${kept}`);
      expect(s.got).not.toContain(`${s.channel} ${lost}`);
      expect(s.socket.connected).toBe(true);
    }

    it('when the key that opened it is revoked', async () => {
      const user = await server.user(false);
      const token = await server.token({}, user.key);
      const s = await subscribed(token.uuid, { 'Api-Key': user.key });
      await revokeKey(server, user);
      await onlyOtherChannel(s, token.uuid, 401);
    });

    it('when the user is deleted', async () => {
      const user = await server.user(false);
      const token = await server.token({}, user.key);
      const s = await subscribed(token.uuid, { 'Api-Key': user.key });
      deleteUser(server, user.id);
      await onlyOtherChannel(s, token.uuid, 401);
    });

    it('when the token password changes; the owner’s subscription keeps receiving', async () => {
      const owner = await server.user(true);
      const token = await server.token({}, owner.key);
      const setPw = (json: Record<string, string>) => server.call('PUT', `/token/${token.uuid}/password`, { key: owner.key, json });
      expect((await setPw({ password: 'one' })).status).toBe(200);
      const s = await subscribed(token.uuid, { Authorization: 'Basic ' + Buffer.from('x:one').toString('base64') });
      const ownerSocket = connect('v4');
      await next(ownerSocket, 'connect');
      expect(await subscribe(ownerSocket, s.channel, { 'Api-Key': owner.key })).toMatchObject({ ok: true });
      const ownerGot: string[] = [];
      ownerSocket.on('request.created', (_ch: string, data: any) => ownerGot.push(data.request.uuid));
      let updatesOnRevoked = 0;
      s.socket.on('token.updated', () => updatesOnRevoked++);

      expect((await setPw({ password: 'two', old_password: 'one' })).status).toBe(200);
      expect(await s.revoked).toEqual([s.channel, 401]);
      const id = await capture(token.uuid);
      await expect.poll(() => ownerGot).toContain(id);
      expect(s.got).not.toContain(`${s.channel} ${id}`);
      expect(updatesOnRevoked).toBe(0);
    });

    it('when the token changes owner', async () => {
      const before = await server.user(false);
      const after = await server.user(false);
      const token = await server.token({}, before.key);
      const s = await subscribed(token.uuid, { 'Api-Key': before.key });
      await changeOwner(server, token.uuid, after.id);
      await onlyOtherChannel(s, token.uuid, 403);
    });

    it('not when the change leaves the subscriber’s access intact', async () => {
      const user = await server.user(false);
      const token = await server.token({}, user.key);
      const s = await subscribed(token.uuid, { 'Api-Key': user.key });
      await newKey(server, user);
      bus().publishAccess({ type: 'user.access_changed', userId: user.id });
      await changeOwner(server, token.uuid, user.id);
      const id = await capture(token.uuid);
      await expect.poll(() => s.got).toContain(`${s.channel} ${id}`);
    });
  });

  it('disconnects clients when the server closes, so close() does not hang', async () => {
    const own = await startTestServer({}, { modules: [createRealtimeModule()] });
    const token = await own.token();
    const a = clients.v2(own.url, { transports: ['websocket'] });
    const b = clients.v4(own.url, { transports: ['websocket'] });
    const c = clients.v2(own.url);
    await Promise.all([next(a, 'connect'), next(b, 'connect'), next(c, 'connect')]);
    for (const s of [a, b, c]) await subscribe(s, `private-token.${token.uuid}`);
    const started = performance.now();
    const gone = Promise.all([next(a, 'disconnect'), next(b, 'disconnect'), next(c, 'disconnect')]);
    await own.close();
    await gone;
    expect(performance.now() - started).toBeLessThan(1500);
    for (const s of [a, b, c]) s.close();
  });
});
