// Replays of a token (core/replay): start, follow, list, cancel.
import Router from '@koa/router';
import { NotFound, ValidationError } from '../../errors.js';
import { mountRoutes, routeFor } from '../route.js';
import type { ReplayService } from '../../replay/service.js';
import type { ReplayRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken } from '../token-access.js';
import { parseSearch } from '../requests/search.js';
import { ReplayBody, ReplayList, ReplayView } from './replay.schema.js';
import type { z } from 'zod';

export function replayView(r: ReplayRecord): z.infer<typeof ReplayView> {
  return {
    id: r.id,
    token_id: r.token_id,
    mode: r.mode,
    url: r.url,
    method: r.method,
    query: r.query,
    sorting: r.sorting,
    ordered: r.ordered,
    limit: r.limit,
    status: r.status,
    cancel_requested: r.cancel_requested,
    total: r.total,
    processed: r.processed,
    ran: r.ran,
    failed: r.failed,
    skipped: r.skipped,
    progress: r.status === 'done' ? 100 : r.total ? Math.min(100, Math.floor((r.processed * 100) / r.total)) : 0,
    log: r.log,
    error: r.error,
    created_at: formatTimestamp(r.created_at),
    started_at: formatTimestamp(r.started_at),
    finished_at: formatTimestamp(r.finished_at),
  };
}

export interface ReplayRoutes {
  replays: ReplayService;
  /** Whether the token has Custom Actions to replay. */
  hasActions(token: import('../../store/types.js').TokenRecord): Promise<boolean>;
  /** Starts the replay's job. */
  start(r: ReplayRecord): Promise<void>;
}

const route = routeFor<{ services: HttpServices; deps: ReplayRoutes }>();

/** Replays of a token (api/replays.md). */
export const replayRoutes = [
  route({
    method: 'post',
    path: '/token/{token_id}/replays',
    summary:
      "Replay: run the token's Custom Actions again (their output replaces the stored one; queued actions run queued) or forward the requests to `url`, for all requests or those matching `query`, up to 100,000, as a background job. Answers the replay (status `queued`) with `total`, the matching count; follow it with GET. 422 when the token has no actions (mode actions), or for a bad query or URL",
    auth: 'token',
    body: ReplayBody,
    response: { status: 202, schema: ReplayView },
    handler: async (ctx, { services, deps }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const body = ctx.input.body;
      parseSearch(body.query); // a syntax error is a 422 naming the position
      if (body.mode === 'actions' && !(await deps.hasActions(token))) {
        throw new ValidationError('The token has no Custom Actions to replay', { mode: ['the token has no Custom Actions'] });
      }
      const r = await deps.replays.create(token, body);
      await deps.start(r);
      return replayView(r);
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/replays',
    summary: "The token's replays, newest first (the 20 newest are kept)",
    auth: 'token',
    response: { status: 200, schema: ReplayList },
    handler: async (ctx, { services }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      return { data: (await services.store.replays.list(token.uuid, 100)).map(replayView) };
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/replays/{replay_id}',
    summary: 'A replay: status (queued, running, done, cancelled, failed), progress, the summary (ran, failed, skipped) and the first failures',
    auth: 'token',
    response: { status: 200, schema: ReplayView },
    handler: async (ctx, { services }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const r = await services.store.replays.get(token.uuid, ctx.params.replay_id!);
      if (!r) throw new NotFound('Replay not found');
      return replayView(r);
    },
  }),
  route({
    method: 'post',
    path: '/token/{token_id}/replays/{replay_id}/cancel',
    summary: 'Cancel a queued or running replay (it stops after the requests in flight); a finished one is answered as it is',
    auth: 'token',
    response: { status: 200, schema: ReplayView },
    handler: async (ctx, { services, deps }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const r = await deps.replays.cancel(token, ctx.params.replay_id!);
      if (!r) throw new NotFound('Replay not found');
      return replayView(r);
    },
  }),
];

export function replayRouter(services: HttpServices, deps: ReplayRoutes): Router<AppState> {
  return mountRoutes(new Router<AppState>(), replayRoutes, { services, deps });
}
