// The socket.io channel, speaking the Laravel Echo protocol the official CLI (whcli) uses.
//
// Client -> server:  subscribe   {channel: "private-token.{id}", auth: {headers: {"Api-Key": "..."}}}
//                    unsubscribe {channel: "private-token.{id}"}
// Server -> client:  request.created   (channel, {request, variables, runtime_variables})
//                    request.deleted   (channel, {uuid} | {all: true} | {filter, count})
//                    token.updated     (channel, {token})
//                    token.deleted     (channel, {uuid})
//                    subscription_error (channel, status)   when the token is unknown or closed to the caller;
//                                                           also later, when the caller loses access (key
//                                                           revoked, user deleted, password or owner changed):
//                                                           the channel is closed, the socket stays open
//                    subscribed        (channel)            once the subscription is active
//
// `request` is the API's request object (requestView). A subscription is checked like the token's
// API: anonymous tokens are open; owned ones need the owner's (or the admin) key; a token password
// may come as Basic Auth in auth.headers.Authorization or as auth.password. socket.io v4 with
// allowEIO3 accepts the v2 clients of the CLI as well as current ones.
import type http from 'node:http';
import { Server, type Socket } from 'socket.io';
import { identify, offeredPassword, type Caller, type PasswordCheck } from '../auth/access.js';
import { clientIp } from '../capture/client-ip.js';
import type { Config } from '../config.js';
import { HttpError } from '../errors.js';
import { requestView } from '../capture/request-view.js';
import type { Logger } from '../logger.js';
import type { RequestRecord, Store, TokenRecord } from '../store/types.js';
import { openToken } from '../tokens/access.js';
import type { TokenPasswords } from '../tokens/passwords.js';
import { tokenView } from '../tokens/service.js';
import { guardStream } from './access-guard.js';
import type { RealtimeBus, RealtimeEvent } from './bus.js';

export interface SocketDeps {
  config: Config;
  store: Store;
  /** Token password checks (TokenService.passwords), throttled with the HTTP API's. */
  passwords: Pick<TokenPasswords, 'check' | 'matches'>;
  bus: RealtimeBus;
  logger: Logger;
  now: () => number;
}

const CHANNEL = /^(?:private-)?token\.(.{1,200})$/;

/** The default (base) variables of a request, as Custom Actions name them. */
export function requestVariables(r: RequestRecord, token: Pick<TokenRecord, 'uuid' | 'alias'>): Record<string, string> {
  const v: Record<string, string> = {};
  v['request.uuid'] = r.uuid;
  v['request.token_id'] = r.token_id;
  v['request.type'] = r.type;
  v['request.content'] = r.body.toString('utf8');
  v['request.size'] = String(r.size);
  v['request.hostname'] = r.hostname;
  v['request.date'] = new Date(r.created_at).toISOString().slice(0, 19).replace('T', ' ');
  v['request.timestamp'] = String(Math.floor(r.created_at / 1000));
  v['request.sorting'] = String(r.sorting);
  for (const [name, values] of Object.entries(r.headers)) v[`request.header.${name}`] = values.join(', ');
  if (r.type === 'web') {
    v['request.method'] = r.method;
    v['request.http_version'] = r.httpVersion ?? '1.1';
    v['request.ip'] = r.ip;
    v['request.user_agent'] = r.user_agent;
    v['request.url'] = r.url;
    const q = r.url.indexOf('?');
    v['request.query'] = q < 0 ? '' : r.url.slice(q + 1);
    for (const [name, value] of Object.entries(r.query ?? {})) v[`request.query.${name}`] = value;
    for (const [name, value] of Object.entries(r.form ?? {})) v[`request.form.${name}`] = typeof value === 'string' ? value : JSON.stringify(value);
    let path = '/';
    try {
      const segments = new URL(r.url, 'http://localhost').pathname.split('/');
      const first = decodeURIComponent(segments[1] ?? '');
      path = first === token.uuid || first === token.alias ? '/' + segments.slice(2).join('/') : segments.join('/') || '/';
    } catch {
      // keep '/'
    }
    v['request.path'] = path;
  }
  return v;
}

function headerMap(auth: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const headers = auth && typeof auth === 'object' ? (auth as { headers?: unknown }).headers : undefined;
  if (headers && typeof headers === 'object') {
    for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') out[k.toLowerCase()] = v;
  }
  return out;
}

/** Where socket.io listens: the one path whose Upgrade requests are upgraded (core/http/port.ts). */
export const SOCKET_IO_PATH = '/socket.io';

export function attachSocketIo(httpServer: http.Server, deps: SocketDeps) {
  const { store, bus, logger, config, passwords } = deps;
  const io = new Server(httpServer, {
    path: SOCKET_IO_PATH,
    allowEIO3: true,
    serveClient: false,
    // Subscriptions carry their own credentials (no cookies), so any origin may connect.
    cors: { origin: '*' },
  });

  /**
   * The token and the caller, when the caller may read the token. `recheck`: the channel's opening
   * check run again, whose password was checked (and counted) when it opened: not a new guess.
   */
  async function authorize(payload: { channel: string; auth?: unknown }, id: string, address: string, recheck: boolean): Promise<{ token: TokenRecord; caller: Caller }> {
    const headers = headerMap(payload.auth);
    const caller = await identify(headers['api-key'] || undefined, store, config.ADMIN_API_KEY);
    const given = payload.auth && typeof payload.auth === 'object' ? (payload.auth as { password?: unknown }).password : undefined;
    const password = offeredPassword(typeof given === 'string' ? { password: given } : {}, headers.authorization);
    const checkPassword: PasswordCheck = recheck ? (t, p) => passwords.matches(t, p) : (t, p) => passwords.check(t, p, address);
    const token = await openToken(store, id, 'read', { caller, password, checkPassword }, deps.now());
    return { token, caller };
  }

  /** A status for subscription_error: the HTTP status the token API would answer. */
  function statusOf(err: unknown): number {
    const status = err instanceof HttpError ? err.status : 500;
    if (status === 500) logger.error('realtime: subscription check failed', { err });
    return status;
  }

  // One payload per event, whatever the number of subscribers.
  const payloads = new WeakMap<RealtimeEvent, unknown>();
  function payloadOf(e: RealtimeEvent, token: TokenRecord): unknown {
    let p = payloads.get(e);
    if (p === undefined) {
      switch (e.type) {
        case 'request.created': {
          const variables = requestVariables(e.request, token);
          p = { request: requestView(e.request, token), variables, runtime_variables: variables };
          break;
        }
        case 'request.deleted':
          p = e.data;
          break;
        case 'token.updated':
          p = { token: tokenView(e.token) };
          break;
        case 'token.deleted':
          p = { uuid: e.tokenId };
          break;
      }
      payloads.set(e, p);
    }
    return p;
  }

  io.on('connection', (socket: Socket) => {
    const subscriptions = new Map<string, () => void>();
    /** What wrong passwords of this socket count against (X-Forwarded-For only from TRUSTED_PROXIES). */
    const address = clientIp(socket.request, config.TRUSTED_PROXIES);

    socket.on('subscribe', async (payload: unknown) => {
      const channel = payload && typeof payload === 'object' ? (payload as { channel?: unknown }).channel : undefined;
      if (typeof channel !== 'string') return;
      const m = CHANNEL.exec(channel);
      if (!m) {
        socket.emit('subscription_error', channel, 404);
        return;
      }
      if (subscriptions.has(channel)) return;
      let opened: { token: TokenRecord; caller: Caller };
      try {
        opened = await authorize(payload as { channel: string; auth?: unknown }, m[1]!, address, false);
      } catch (err) {
        socket.emit('subscription_error', channel, statusOf(err));
        return;
      }
      if (!socket.connected || subscriptions.has(channel)) return;
      const { token, caller } = opened;
      const off = guardStream({
        bus,
        token,
        userId: caller.kind === 'user' ? caller.user.id : null,
        // The check that opened the channel, with the same credentials (by UUID: an alias may move).
        check: async () => (await authorize(payload as { channel: string; auth?: unknown }, token.uuid, address, true)).token,
        deliver: (e) => socket.emit(e.type, channel, payloadOf(e, token)),
        // The channel closes; the socket stays open for its other channels.
        revoke: (err) => {
          if (subscriptions.get(channel) !== off) return;
          subscriptions.delete(channel);
          socket.emit('subscription_error', channel, statusOf(err));
        },
      });
      subscriptions.set(channel, off);
      socket.emit('subscribed', channel);
    });

    socket.on('unsubscribe', (payload: unknown) => {
      const channel = payload && typeof payload === 'object' ? (payload as { channel?: unknown }).channel : undefined;
      if (typeof channel !== 'string') return;
      subscriptions.get(channel)?.();
      subscriptions.delete(channel);
    });

    socket.on('disconnect', () => {
      for (const off of subscriptions.values()) off();
      subscriptions.clear();
    });
  });

  return {
    io,
    /** Disconnects every client (so the HTTP server can close) without closing the HTTP server. */
    disconnectAll(): void {
      io.disconnectSockets(true);
      io.engine.close();
    },
  };
}
