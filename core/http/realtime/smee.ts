// A smee.io channel per token: GET /token/:token/smee, what the unchanged `smee-client` (and Probot's
// WEBHOOK_PROXY_URL) reads to forward webhooks to a developer's machine.
//
//   event: ready / data: {}                 once, when the stream opens
//   id: <request sorting> / data: {...}     one unnamed (`message`) event per capture
//   event: ping / data: {}                  every heartbeat
//
// An event's data is smee.io's: the capture's headers (lower-case names, repeated values joined with
// ", "), then `body` (the parsed JSON value for a JSON body, else the text), `query` and `timestamp`
// (ms). smee-client posts `body` re-serialised as JSON with the headers, and the query on the target
// URL. `ready` and `ping` carry no id, so the client's Last-Event-ID stays the last capture's: a
// reconnecting client gets the captures it missed, up to SMEE_REPLAY_MAX and SMEE_REPLAY_WINDOW_MS
// back (smee.io itself keeps nothing). Access and revocation are the live stream's (sse.ts).
import Router from '@koa/router';
import { mountRoutes, routeFor } from '../route.js';
import type { RequestRecord } from '../../store/types.js';
import type { AppState } from '../services.js';
import { SseQuery, serveTokenStream, type SseDeps, type StreamFormat } from './sse.js';

/** A reconnecting client gets at most this many missed captures... */
export const SMEE_REPLAY_MAX = 100;
/** ...made at most this long ago. */
export const SMEE_REPLAY_WINDOW_MS = 10 * 60_000;

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** The body as smee.io gives it: the JSON value when the capture says JSON and is, else the text. */
function smeeBody(r: RequestRecord): unknown {
  const text = r.body.toString('utf8');
  if (JSON_TYPE.test(r.content_type ?? '')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** One capture as a smee.io event's data. */
export function smeeData(r: RequestRecord): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(r.headers)) data[name] = values.join(', ');
  data.body = smeeBody(r);
  data.query = r.query ?? {};
  data.timestamp = r.created_at;
  return data;
}

const smeeFormat: StreamFormat = {
  greeting: 'event: ready\ndata: {}\n\n',
  heartbeat: 'event: ping\ndata: {}\n\n',
  // Captures only: smee.io has no deletions or settings, and its clients would forward anything.
  deliver(stream, e) {
    if (e.type === 'request.created' && e.request.type === 'web') stream.send(null, smeeData(e.request), e.request.sorting);
  },
  replay: (stream, r) => stream.send(null, smeeData(r), r.sorting),
  async missed(store, token, after, now) {
    const { items } = await store.requests.list(token.uuid, { sorting: 'newest', page: 1, perPage: SMEE_REPLAY_MAX });
    return items.filter((r) => r.type === 'web' && r.sorting > after && r.created_at >= now - SMEE_REPLAY_WINDOW_MS).reverse();
  },
};

const route = routeFor<SseDeps>();

export const smeeRoutes = [
  route({
    method: 'get',
    path: '/token/{token_id}/smee',
    summary:
      "A smee.io channel for smee-client: a `ready` event, one event per HTTP capture (its headers, `body`, `query`, `timestamp`), `ping`s; with Last-Event-ID the last 100 captures of the last 10 minutes missed. Access as the token's events (see docs/smee.md)",
    auth: 'token-view',
    query: SseQuery,
    response: { status: 200, type: 'text/event-stream' },
    handler: (ctx, deps) => serveTokenStream(ctx, deps, smeeFormat),
  }),
];

export function smeeRouter(deps: SseDeps): Router<AppState> {
  return mountRoutes(new Router<AppState>(), smeeRoutes, deps);
}
