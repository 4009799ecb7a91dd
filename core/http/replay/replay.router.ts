// Replays of a token (core/replay): start, follow, list, cancel.
import Router from '@koa/router';
import { NotFound, ValidationError, fromZod } from '../../errors.js';
import type { ReplayService } from '../../replay/service.js';
import type { ReplayRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken } from '../token-access.js';
import { parseSearch } from '../requests/search.js';
import { ReplayBody, type ReplayView } from './replay.schema.js';
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

export function replayRouter(services: HttpServices, deps: ReplayRoutes): Router<AppState> {
  const router = new Router<AppState>();

  router.post('/token/:token/replays', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const body = ReplayBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    parseSearch(body.data.query); // a syntax error is a 422 naming the position
    if (body.data.mode === 'actions' && !(await deps.hasActions(token))) {
      throw new ValidationError('The token has no Custom Actions to replay', { mode: ['the token has no Custom Actions'] });
    }
    const r = await deps.replays.create(token, body.data);
    await deps.start(r);
    ctx.status = 202;
    ctx.body = replayView(r);
  });

  router.get('/token/:token/replays', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = { data: (await services.store.replays.list(token.uuid, 100)).map(replayView) };
  });

  router.get('/token/:token/replays/:replay', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const r = await services.store.replays.get(token.uuid, ctx.params.replay!);
    if (!r) throw new NotFound('Replay not found');
    ctx.body = replayView(r);
  });

  router.post('/token/:token/replays/:replay/cancel', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const r = await deps.replays.cancel(token, ctx.params.replay!);
    if (!r) throw new NotFound('Replay not found');
    ctx.body = replayView(r);
  });

  return router;
}
