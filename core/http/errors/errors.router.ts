// The account's error log (core/errorlog): GET /errors (searchable, paged, with the unread count),
// GET /errors/unread, POST /errors/read. Whose entries a caller sees is core/errorlog/scope.ts's call.
import Router from '@koa/router';
import { errorLogScope } from '../../errorlog/scope.js';
import type { ErrorLogRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import { mountRoutes, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { ErrorPageView, MarkReadResult, UnreadView } from '../../errorlog/errorlog.schema.js';
import { ErrorListQuery, ErrorScopeQuery, MarkReadBody } from './errors.schema.js';

export function errorEntryView(e: ErrorLogRecord) {
  return { ...e, created_at: formatTimestamp(e.created_at) };
}

const route = routeFor<HttpServices>();

export const errorLogRoutes = [
  route({
    method: 'get',
    path: '/errors',
    summary:
      "The caller's error log: action errors on captures and failed schedule runs, newest first, in the page envelope with `unread` (the count) beside it; `data` holds the entries. The administrator sees every account's",
    auth: 'caller',
    query: ErrorListQuery,
    response: { status: 200, schema: ErrorPageView },
    handler: async (ctx, services) => {
      const q = ctx.input.query;
      const scope = errorLogScope(ctx.state.caller, q.user_id);
      const filter = { search: q.query || undefined, source: q.source, unread: q.unread, tokenId: q.token_id, scheduleId: q.schedule_id };
      const [page, unread] = await Promise.all([services.store.errorLog.list(scope, filter, q.page, q.per_page), services.store.errorLog.unread(scope)]);
      return { ...pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(errorEntryView), page.total, q.page, q.per_page), unread };
    },
  }),
  route({
    method: 'get',
    path: '/errors/unread',
    summary: 'How many error log entries are unread',
    auth: 'caller',
    query: ErrorScopeQuery,
    response: { status: 200, schema: UnreadView },
    handler: async (ctx, { store }) => ({ unread: await store.errorLog.unread(errorLogScope(ctx.state.caller, ctx.input.query.user_id)) }),
  }),
  route({
    method: 'post',
    path: '/errors/read',
    summary: 'Mark error log entries read (`ids`, or all; `up_to` an ID: only that one and older)',
    auth: 'caller',
    query: ErrorScopeQuery,
    body: MarkReadBody,
    response: { status: 200, schema: MarkReadResult },
    handler: async (ctx, { store }) => {
      const scope = errorLogScope(ctx.state.caller, ctx.input.query.user_id);
      const marked = await store.errorLog.markRead(scope, ctx.input.body.ids ?? null, ctx.input.body.up_to);
      return { marked, unread: await store.errorLog.unread(scope) };
    },
  }),
];

export function errorLogRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), errorLogRoutes, services);
}
