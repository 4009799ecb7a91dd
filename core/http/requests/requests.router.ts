import Router from '@koa/router';
import { bodyStream } from '../../store/bodies/body-files.js';
import type { ParameterizedContext } from 'koa';
import { Conflict, NotFound, PayloadTooLarge, TooManyRequests, fromZod } from '../../errors.js';
import type { RequestDeletedData } from '../../realtime/bus.js';
import { BUS } from '../../service-keys.js';
import type { RequestFilter, RequestRecord, TokenRecord } from '../../store/types.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, loadTokenForViewing } from '../token-access.js';
import { requestView } from '../../capture/request-view.js';
import { createOutboundClient } from '../../net/outbound.js';
import { csvExport, harExport } from './export.js';
import { forwardRequest } from './forward.js';
import { parseSearch } from './search.js';
import { waitForRequest } from './wait.js';
import { ExportQuery, ForwardBody, MAX_SET_RESPONSE_BYTES, NoteBody, RequestFilterQuery, RequestListQuery, SetResponseBody } from './requests.schema.js';

/** Exports (CSV or HAR) of one token per minute, as webhook.site allows. */
export const EXPORTS_PER_MINUTE = 3;

export function requestsRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock } = services;
  // Forwards go out through the one outbound client, under the configured outbound policy.
  const outbound = createOutboundClient(services.config);

  /** Tells realtime subscribers, through the bus the realtime module provides (when one runs). */
  function publishDeleted(tokenId: string, data: RequestDeletedData): void {
    services.provided?.get(BUS)?.publish({ type: 'request.deleted', tokenId, data });
  }
  function publishDeletedMany(ctx: ParameterizedContext<AppState>, tokenId: string, count: number): void {
    const param = (k: string) => (typeof ctx.query[k] === 'string' && ctx.query[k] !== '' ? (ctx.query[k] as string) : null);
    const filter = { query: param('query'), date_from: param('date_from'), date_to: param('date_to') };
    publishDeleted(tokenId, filter.query === null && filter.date_from === null && filter.date_to === null ? { all: true } : { filter, count });
  }

  async function loadRequest(ctx: ParameterizedContext<AppState>, token: TokenRecord, id: string): Promise<RequestRecord> {
    const r = id === 'latest' ? await store.requests.latest(token.uuid) : await store.requests.get(token.uuid, id);
    if (!r) throw new NotFound('Request not found');
    return r;
  }

  function filterOf(ctx: ParameterizedContext<AppState>): RequestFilter {
    const q = RequestFilterQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    return { query: parseSearch(q.data.query), dateFrom: q.data.date_from ?? null, dateTo: q.data.date_to ?? null, now: clock.now() };
  }

  router.get('/token/:token/requests', async (ctx) => {
    const token = await loadTokenForViewing(ctx, services, ctx.params.token!);
    const q = RequestListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const { page, per_page, sorting } = q.data;
    const result = await store.requests.list(token.uuid, { ...filterOf(ctx), sorting, page, perPage: per_page });
    const from = result.items.length ? (page - 1) * per_page + 1 : 0;
    ctx.body = {
      data: result.items.map((r) => requestView(r, token)),
      total: result.total,
      // A filtered count stops at COUNT_BOUND: then `total` is that bound and more pages may follow.
      total_capped: result.totalCapped ?? false,
      per_page,
      current_page: page,
      is_last_page: result.totalCapped ? result.items.length < per_page : page * per_page >= result.total,
      from,
      to: result.items.length ? from + result.items.length - 1 : 0,
    };
  });

  // Before /requests/:request, which would take `export` for a request ID.
  router.get('/token/:token/requests/export', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const q = ExportQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    // An export reads up to every stored request of the token: a few a minute per token (CSV or HAR).
    const now = clock.now();
    const window = now - (now % 60_000);
    if ((await store.counters.hit(`export:token:${token.uuid}`, window, 120_000)) > EXPORTS_PER_MINUTE) {
      throw new TooManyRequests(`Too many exports of this token: at most ${EXPORTS_PER_MINUTE} per minute`, (window + 60_000 - now) / 1000);
    }
    // Streamed a page at a time (export.ts): a token may keep up to MAX_REQUEST_LIMIT requests.
    const spec = { token, filter: filterOf(ctx), sorting: q.data.sorting, limit: q.data.per_page ?? Math.max(token.request_limit, 1) };
    if (q.data.format === 'har') {
      ctx.type = 'application/json; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="requests-${token.uuid}.har"`);
      ctx.body = harExport(store, spec);
      return;
    }
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="requests-${token.uuid}.csv"`);
    ctx.body = csvExport(store, spec);
  });

  // Also before /requests/:request.
  router.get('/token/:token/requests/wait', async (ctx) => {
    await waitForRequest(ctx, services, await loadToken(ctx, services, ctx.params.token!));
  });

  for (const prefix of ['request', 'requests']) {
    router.put(`/token/:token/${prefix}/:request/response`, async (ctx) => {
      const token = await loadToken(ctx, services, ctx.params.token!);
      const body = SetResponseBody.safeParse(ctx.request.body ?? {});
      if (!body.success) throw fromZod(body.error);
      if (Math.floor((body.data.content.length * 3) / 4) > MAX_SET_RESPONSE_BYTES) throw new PayloadTooLarge('content is larger than 10 MiB');
      const ok = await store.listeners.respond(token.uuid, ctx.params.request!, body.data, clock.now());
      if (!ok) throw new Conflict('No capture of this token is waiting for a response with this request ID (listen ended, or already answered)');
      ctx.body = { status: true };
    });

    router.get(`/token/:token/${prefix}/:request/download/:file`, async (ctx) => {
      const token = await loadTokenForViewing(ctx, services, ctx.params.token!);
      const r = await loadRequest(ctx, token, ctx.params.request!);
      const meta = r.files.find((f) => f.id === ctx.params.file);
      const data = meta ? await store.requests.getFile(token.uuid, r.uuid, meta.id) : null;
      if (!meta || !data) throw new NotFound('File not found');
      const ascii = meta.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
      ctx.type = meta.content_type;
      ctx.set('Content-Disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(meta.filename)}`);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = data;
    });

    router.get(`/token/:token/${prefix}/:request`, async (ctx) => {
      const token = await loadTokenForViewing(ctx, services, ctx.params.token!);
      ctx.body = requestView(await loadRequest(ctx, token, ctx.params.request!), token);
    });

    router.post(`/token/:token/${prefix}/:request/forward`, async (ctx) => {
      const token = await loadToken(ctx, services, ctx.params.token!);
      const r = await loadRequest(ctx, token, ctx.params.request!);
      const body = ForwardBody.safeParse(ctx.request.body ?? {});
      if (!body.success) throw fromZod(body.error);
      ctx.body = await forwardRequest(outbound, r, body.data.url, body.data.method);
    });

    router.get(`/token/:token/${prefix}/:request/raw`, async (ctx) => {
      const token = await loadTokenForViewing(ctx, services, ctx.params.token!);
      const r = await loadRequest(ctx, token, ctx.params.request!);
      ctx.status = 200;
      ctx.type = r.content_type ?? 'text/plain';
      // A body kept in a file is streamed from it rather than read whole.
      const stream = bodyStream(r);
      if (stream) ctx.length = r.size;
      ctx.body = stream ?? r.body;
    });

    router.delete(`/token/:token/${prefix}/:request`, async (ctx) => {
      const token = await loadToken(ctx, services, ctx.params.token!);
      const r = await loadRequest(ctx, token, ctx.params.request!);
      if (await store.requests.delete(token.uuid, r.uuid)) publishDeleted(token.uuid, { uuid: r.uuid });
      ctx.status = 204;
    });

    const setNote = async (ctx: ParameterizedContext<AppState>) => {
      const token = await loadToken(ctx, services, ctx.params.token!);
      const r = await loadRequest(ctx, token, ctx.params.request!);
      const body = NoteBody.safeParse(ctx.request.body ?? {});
      if (!body.success) throw fromZod(body.error);
      const updated = await store.requests.update(token.uuid, r.uuid, { note: body.data.note, updated_at: clock.now() });
      ctx.body = requestView(updated!, token);
    };
    router.put(`/token/:token/${prefix}/:request`, setNote);
    router.put(`/token/:token/${prefix}/:request/note`, setNote);
  }

  router.delete('/token/:token/request', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    publishDeletedMany(ctx, token.uuid, await store.requests.deleteMany(token.uuid, filterOf(ctx)));
    ctx.status = 204;
  });
  router.delete('/token/:token/requests', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    publishDeletedMany(ctx, token.uuid, await store.requests.deleteMany(token.uuid, filterOf(ctx)));
    ctx.status = 204;
  });

  return router;
}
