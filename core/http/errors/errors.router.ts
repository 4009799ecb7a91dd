// The account's error log (core/errorlog): GET /errors (searchable, paged, with the unread count),
// GET /errors/unread, POST /errors/read. Whose entries a caller sees is core/errorlog/scope.ts's call.
import Router from '@koa/router';
import { errorLogScope } from '../../errorlog/scope.js';
import { fromZod } from '../../errors.js';
import type { ErrorLogRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { ErrorListQuery, ErrorScopeQuery, MarkReadBody } from './errors.schema.js';

export function errorEntryView(e: ErrorLogRecord) {
  return { ...e, created_at: formatTimestamp(e.created_at) };
}

function parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error);
  return r.data;
}

export function errorLogRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { store } = services;

  router.get('/errors', async (ctx) => {
    const q = parse(ErrorListQuery, ctx.query);
    const scope = errorLogScope(ctx.state.caller, q.user_id);
    const filter = { search: q.query || undefined, source: q.source, unread: q.unread, tokenId: q.token_id, scheduleId: q.schedule_id };
    const [page, unread] = await Promise.all([store.errorLog.list(scope, filter, q.page, q.per_page), store.errorLog.unread(scope)]);
    ctx.body = { ...pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(errorEntryView), page.total, q.page, q.per_page), unread };
  });

  router.get('/errors/unread', async (ctx) => {
    const scope = errorLogScope(ctx.state.caller, parse(ErrorScopeQuery, ctx.query).user_id);
    ctx.body = { unread: await store.errorLog.unread(scope) };
  });

  router.post('/errors/read', async (ctx) => {
    const scope = errorLogScope(ctx.state.caller, parse(ErrorScopeQuery, ctx.query).user_id);
    const body = parse(MarkReadBody, ctx.request.body ?? {});
    const marked = await store.errorLog.markRead(scope, body.ids ?? null, body.up_to);
    ctx.body = { marked, unread: await store.errorLog.unread(scope) };
  });

  return router;
}
