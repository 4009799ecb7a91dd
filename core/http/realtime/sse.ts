// Server-Sent Events for the web page: GET /token/:token/events.
//
//   id: <request sorting>          (request.created only, so Last-Event-ID resumes from it)
//   event: request.created | request.deleted | token.updated | token.deleted
//   data: <one line of JSON>
//
// A comment line (`: ping`) every heartbeat. With Last-Event-ID (header, or ?last_event_id= since
// EventSource cannot set headers on the first connection) the stored requests with a higher
// sorting key are replayed first, oldest first; live events that arrive meanwhile are held back and
// sent after the replay, without the ones the replay already sent. The stream ends when the caller
// loses access to the token: key revoked, user deleted, password or owner changed (access-guard.ts).
// A share link (`?share=`, core/tokens/share.ts) opens the stream view-only: it gets the requests'
// events but no token.updated (settings), and ends when the link is revoked or replaced.
// serveTokenStream does all of this for smee.io's channel too (smee.ts), in that format.
import type { ServerResponse } from 'node:http';
import type { ParameterizedContext } from 'koa';
import Router from '@koa/router';
import { z } from 'zod';
import { mountRoutes, routeFor } from '../route.js';
import { identify } from '../../auth/access.js';
import { requestView } from '../../capture/request-view.js';
import { guardStream } from '../../realtime/access-guard.js';
import type { RealtimeBus, RealtimeEvent } from '../../realtime/bus.js';
import type { Millis, RequestRecord, Store, TokenRecord } from '../../store/types.js';
import { openShared, openToken } from '../../tokens/access.js';
import { tokenView } from '../../tokens/service.js';
import type { AppState, HttpServices } from '../services.js';
import { offeredShare, tokenCredentials } from '../token-access.js';

export interface SseOptions {
  /** Interval of the `: ping` comment (ms). Default 15 s. */
  heartbeatMs?: number;
  /** A client this far behind (bytes queued) is dropped; it reconnects and resumes. Default 8 MiB. */
  maxQueuedBytes?: number;
  /** EventSource reconnection delay sent as `retry:` (ms). Default 2000. */
  retryMs?: number;
}

const REPLAY_PAGE = 200;

/** Stored requests of a token with a sorting key above `after`, oldest first. */
export async function requestsSince(store: Store, tokenId: string, after: number): Promise<RequestRecord[]> {
  const out: RequestRecord[] = [];
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const { items } = await store.requests.list(tokenId, { sorting: 'newest', page, perPage: REPLAY_PAGE });
    let done = items.length < REPLAY_PAGE;
    for (const r of items) {
      if (r.sorting <= after) {
        done = true;
        break;
      }
      // A capture committed between two pages shifts the list by one: skip the repeat.
      if (!seen.has(r.uuid)) out.push(r);
      seen.add(r.uuid);
    }
    if (done) break;
  }
  return out.reverse();
}

/** `Last-Event-ID` as a sorting key; null when absent or not one of our ids. */
export function parseLastEventId(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** One open event stream. */
export class SseStream {
  private closed = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly maxQueuedBytes: number,
  ) {
    res.on('close', () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.cleanups.push(fn);
  }

  /** Writes `chunk` every `ms`: a comment (`: ping`) or, where clients expect one, an event. */
  startHeartbeat(ms: number, chunk = ': ping\n\n'): void {
    this.heartbeat = setInterval(() => this.write(chunk), ms);
    this.heartbeat.unref();
  }

  /** One event; `event` null sends it without a name, as the default `message` event. */
  send(event: string | null, data: unknown, id?: number): void {
    this.write(`${id !== undefined ? `id: ${id}\n` : ''}${event !== null ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }

  write(chunk: string): void {
    if (this.closed) return;
    this.res.write(chunk);
    if (this.res.writableLength > this.maxQueuedBytes) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const fn of this.cleanups.splice(0)) fn();
    if (!this.res.writableEnded) this.res.end();
  }
}

/**
 * The SSE frame of a bus event. `token` is the stream's token as last seen, so a capture answered with
 * its default response shows that response, as the request API does.
 */
export function sseFrame(e: RealtimeEvent, token: TokenRecord): { event: string; data: unknown; id?: number } {
  switch (e.type) {
    case 'request.created':
      return { event: e.type, data: requestView(e.request, token), id: e.request.sorting };
    case 'request.deleted':
      return { event: e.type, data: e.data };
    case 'token.updated':
      return { event: e.type, data: tokenView(e.token) };
    case 'token.deleted':
      return { event: e.type, data: { uuid: e.tokenId } };
  }
}

export function sseRouter(services: HttpServices, bus: RealtimeBus, streams: Set<SseStream>, opts: SseOptions = {}): Router<AppState> {
  return mountRoutes(new Router<AppState>(), sseRoutes, { services, bus, streams, opts });
}

export interface SseDeps {
  services: HttpServices;
  bus: RealtimeBus;
  streams: Set<SseStream>;
  opts: SseOptions;
}
const route = routeFor<SseDeps>();

/** What the stream reads from its query string (EventSource cannot set headers). */
export const SseQuery = z.object({
  api_key: z.string().optional().describe('The API key, instead of the Api-Key header'),
  password: z.string().optional().describe("The token's password"),
  share: z.string().optional().describe('A share link secret: the stream is view-only'),
  last_event_id: z.string().optional().describe('Resume after this event id (as the Last-Event-ID header)'),
});

/** How one kind of token stream writes what happens: the web page's events, or smee.io's. */
export interface StreamFormat {
  /** Written once when the stream opens, after `retry:`. */
  greeting: string;
  /** Written every heartbeat. */
  heartbeat: string;
  /** Writes one live event of the token (`token` as last seen); the stream closes itself after token.deleted. */
  deliver(stream: SseStream, e: RealtimeEvent, token: TokenRecord): void;
  /** Writes one stored request missed before a reconnection. */
  replay(stream: SseStream, r: RequestRecord, token: TokenRecord): void;
  /** The stored requests a client that last saw `after` (a sorting key) missed, oldest first. */
  missed(store: Store, token: TokenRecord, after: number, now: Millis): Promise<RequestRecord[]>;
}

/**
 * Opens a token's event stream in `format`: the access check of the token's API (or its share
 * link, view-only), kept current by guardStream; with a Last-Event-ID, the missed requests first.
 */
export async function serveTokenStream(ctx: ParameterizedContext<AppState>, { services, bus, streams, opts }: SseDeps, format: StreamFormat): Promise<void> {
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxQueued = opts.maxQueuedBytes ?? 8 * 1024 * 1024;
  // EventSource cannot send headers: the API key may come in the query string instead.
  const queryKey = ctx.query.api_key;
  const apiKey = ctx.get('api-key') || (typeof queryKey === 'string' && queryKey !== '' ? queryKey : undefined);
  if (!ctx.get('api-key') && apiKey !== undefined) {
    ctx.state.caller = await identify(apiKey, services.store, services.config.ADMIN_API_KEY);
  }
  const caller = ctx.state.caller;
  const credentials = tokenCredentials(ctx, services);
  const share = offeredShare(ctx);
  const token =
    share !== undefined ? await openShared(services.store, ctx.params.token_id!, share, services.clock.now()) : await openToken(services.store, ctx.params.token_id!, 'read', credentials, services.clock.now());
  const lastId = parseLastEventId(ctx.get('last-event-id') || ctx.query.last_event_id);

  ctx.respond = false;
  const res = ctx.res;
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setTimeout(0);
  // The connection serves this one response: once it ends (client gone, token deleted, shutdown)
  // the socket closes too, so it never keeps the server from closing.
  res.shouldKeepAlive = false;
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    // nginx and similar proxies: do not buffer this response.
    'X-Accel-Buffering': 'no',
  });
  const stream = new SseStream(res, maxQueued);
  streams.add(stream);
  stream.onClose(() => streams.delete(stream));

  // Subscribe before reading the store, so nothing committed meanwhile is missed; hold live
  // events back until the replay is out.
  let held: RealtimeEvent[] | null = [];
  let current = token;
  const deliver = (e: RealtimeEvent) => {
    if (e.type === 'token.updated') current = e.token;
    // A share link shows requests only, never the token's settings.
    if (share !== undefined && e.type === 'token.updated') return;
    format.deliver(stream, e, current);
    if (e.type === 'token.deleted') stream.close();
  };
  stream.onClose(
    guardStream({
      bus,
      token,
      userId: share === undefined && caller.kind === 'user' ? caller.user.id : null,
      recheckOnEveryUpdate: share !== undefined,
      // The check that opened the stream, with the same credentials.
      check: async () => {
        if (share !== undefined) return openShared(services.store, token.uuid, share, services.clock.now());
        const again = await identify(apiKey, services.store, services.config.ADMIN_API_KEY);
        // The password the stream was opened with, checked again as it was given: not a new guess.
        const checkPassword = services.tokens.passwords.matches.bind(services.tokens.passwords);
        return openToken(services.store, token.uuid, 'read', { ...credentials, caller: again, checkPassword }, services.clock.now());
      },
      deliver: (e) => (held ? held.push(e) : deliver(e)),
      revoke: () => stream.close(),
    }),
  );
  stream.write(`retry: ${opts.retryMs ?? 2000}\n${format.greeting}`);
  stream.startHeartbeat(heartbeatMs, format.heartbeat);

  const replayed = new Set<string>();
  if (lastId !== null) {
    try {
      for (const r of await format.missed(services.store, token, lastId, services.clock.now())) {
        if (stream.isClosed) break;
        replayed.add(r.uuid);
        format.replay(stream, r, token);
      }
    } catch (err) {
      services.logger.error('realtime: replay failed', { err, token: token.uuid });
      stream.close();
    }
  }
  const pending = held;
  held = null;
  for (const e of pending) {
    if (e.type === 'request.created' && replayed.has(e.request.uuid)) continue;
    deliver(e);
  }
}

/** The web page's stream: every event of the token, each stored request missed. */
const pageFormat: StreamFormat = {
  greeting: ': connected\n\n',
  heartbeat: ': ping\n\n',
  deliver(stream, e, token) {
    const f = sseFrame(e, token);
    stream.send(f.event, f.data, f.id);
  },
  replay: (stream, r, token) => stream.send('request.created', requestView(r, token), r.sorting),
  missed: (store, token, after) => requestsSince(store, token.uuid, after),
};

export const sseRoutes = [
  route({
    method: 'get',
    path: '/token/{token_id}/events',
    summary: 'Server-sent events: request.created, request.deleted, token.updated (see docs/realtime.md)',
    auth: 'token-view',
    query: SseQuery,
    response: { status: 200, type: 'text/event-stream' },
    handler: (ctx, deps) => serveTokenStream(ctx, deps, pageFormat),
  }),
];
