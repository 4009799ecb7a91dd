import Router from '@koa/router';
import { z } from 'zod';
import { bodyStream } from '../../store/bodies/body-files.js';
import type { ParameterizedContext } from 'koa';
import { Conflict, NotFound, PayloadTooLarge, fromZod } from '../../errors.js';
import type { RequestDeletedData } from '../../realtime/bus.js';
import { BUS } from '../../service-keys.js';
import type { RequestFilter, RequestRecord, TokenRecord } from '../../store/types.js';
import { RequestView, requestView } from '../../capture/request-view.js';
import { SENT_BODY_FILE_ID } from '../../capture/content-encoding.js';
import { createOutboundClient, type OutboundClient } from '../../net/outbound.js';
import { mountRoutes, routeFor, type Route } from '../route.js';
import { limitReadsPerMinute } from '../read-limit.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, loadTokenForViewing } from '../token-access.js';
import { csvExport, harExport } from './export.js';
import { forwardRequest } from './forward.js';
import { parseSearch } from './search.js';
import { waitForRequest } from './wait.js';
import { ExportQuery, ForwardBody, ForwardResult, MAX_SET_RESPONSE_BYTES, NoteBody, RequestFilterQuery, RequestListQuery, RequestPage, SetResponseBody, WaitQuery } from './requests.schema.js';

/** Exports (CSV or HAR) of one token per minute, as webhook.site allows. */
export const EXPORTS_PER_MINUTE = 3;

interface RequestsDeps {
  services: HttpServices;
  /** Forwards go out through the one outbound client, under the configured outbound policy. */
  outbound: OutboundClient;
}

const route = routeFor<RequestsDeps>();

/** Tells realtime subscribers, through the bus the realtime module provides (when one runs). */
function publishDeleted(services: HttpServices, tokenId: string, data: RequestDeletedData): void {
  services.provided?.get(BUS)?.publish({ type: 'request.deleted', tokenId, data });
}
function publishDeletedMany(ctx: ParameterizedContext<AppState>, services: HttpServices, tokenId: string, count: number): void {
  const param = (k: string) => (typeof ctx.query[k] === 'string' && ctx.query[k] !== '' ? (ctx.query[k] as string) : null);
  const filter = { query: param('query'), date_from: param('date_from'), date_to: param('date_to') };
  publishDeleted(services, tokenId, filter.query === null && filter.date_from === null && filter.date_to === null ? { all: true } : { filter, count });
}

async function loadRequest(services: HttpServices, token: TokenRecord, id: string): Promise<RequestRecord> {
  const r = id === 'latest' ? await services.store.requests.latest(token.uuid) : await services.store.requests.get(token.uuid, id);
  if (!r) throw new NotFound('Request not found');
  return r;
}

function filterOf(services: HttpServices, q: z.output<typeof RequestFilterQuery>): RequestFilter {
  // The store's bounds are inclusive milliseconds; the date_to second ends a millisecond before the next.
  return { query: parseSearch(q.query), dateFrom: q.date_from?.start ?? null, dateTo: q.date_to ? q.date_to.end - 1 : null, now: services.clock.now() };
}

/** A body read after the 404 checks (bodyParsedByService): bad input is still fromZod's 422. */
function parsed<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) throw fromZod(r.error);
  return r.data;
}

const ListenAnswer = z.object({ status: z.literal(true) });

/** The routes of one request, under `/token/{token_id}/<prefix>/{request_id}`; webhook.site spells the prefix both ways. */
function oneRequestRoutes(prefix: 'request' | 'requests'): Array<Route<RequestsDeps>> {
  const base = `/token/{token_id}/${prefix}/{request_id}`;
  const same = (path: string) => (prefix === 'requests' ? ` (same as ${path.replace('/requests/', '/request/')})` : '');
  return [
    route({
      method: 'put',
      path: `${base}/response`,
      summary: `Answer a capture that is listening (base64 content)${same(`${base}/response`)}`,
      auth: 'token',
      body: SetResponseBody,
      response: { status: 200, schema: ListenAnswer },
      handler: async (ctx, { services }) => {
        const token = await loadToken(ctx, services, ctx.params.token_id!);
        const body = ctx.input.body;
        if (Math.floor((body.content.length * 3) / 4) > MAX_SET_RESPONSE_BYTES) throw new PayloadTooLarge('content is larger than 10 MiB');
        const ok = await services.store.listeners.respond(token.uuid, ctx.params.request_id!, body, services.clock.now());
        if (!ok) throw new Conflict('No capture of this token is waiting for a response with this request ID (listen ended, or already answered)');
        return { status: true as const };
      },
    }),
    route({
      method: 'get',
      path: `${base}/download/{file_id}`,
      summary: `Download an uploaded file or attachment${same(`${base}/download/{file_id}`)}`,
      auth: 'token-view',
      response: { status: 200, type: '*/*' },
      handler: async (ctx, { services }) => {
        const token = await loadTokenForViewing(ctx, services, ctx.params.token_id!);
        const r = await loadRequest(services, token, ctx.params.request_id!);
        const meta = r.files.find((f) => f.id === ctx.params.file_id);
        const data = meta ? await services.store.requests.getFile(token.uuid, r.uuid, meta.id) : null;
        if (!meta || !data) throw new NotFound('File not found');
        const ascii = meta.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
        ctx.type = meta.content_type;
        ctx.set('Content-Disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(meta.filename)}`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = data;
      },
    }),
    route({
      method: 'get',
      path: base,
      summary: `Get a captured request (or \`latest\`)${same(base)}`,
      auth: 'token-view',
      response: { status: 200, schema: RequestView },
      handler: async (ctx, { services }) => {
        const token = await loadTokenForViewing(ctx, services, ctx.params.token_id!);
        return requestView(await loadRequest(services, token, ctx.params.request_id!), token);
      },
    }),
    route({
      method: 'post',
      path: `${base}/forward`,
      summary:
        "Send a stored HTTP request to another URL (its method unless `method` is given, its headers and body) through the outbound policy; answers the target's response. 422 naming `url` for a refused, invalid or unresolvable address, 502 when the target cannot be reached, 504 when it does not answer within 15 s" +
        same(`${base}/forward`),
      auth: 'token',
      body: ForwardBody,
      // The token and the request are looked up (404) before the body is read (422).
      bodyParsedByService: true,
      response: { status: 200, schema: ForwardResult },
      handler: async (ctx, { services, outbound }) => {
        const token = await loadToken(ctx, services, ctx.params.token_id!);
        const r = await loadRequest(services, token, ctx.params.request_id!);
        const body = parsed(ForwardBody, ctx.request.body);
        return forwardRequest(outbound, r, body.url, body.method);
      },
    }),
    route({
      method: 'get',
      path: `${base}/raw`,
      summary: `Replay the body as it was sent (still compressed when it came with a Content-Encoding), with its content type${same(`${base}/raw`)}`,
      auth: 'token-view',
      response: { status: 200, type: '*/*' },
      handler: async (ctx, { services }) => {
        const token = await loadTokenForViewing(ctx, services, ctx.params.token_id!);
        const r = await loadRequest(services, token, ctx.params.request_id!);
        ctx.status = 200;
        ctx.type = r.content_type ?? 'text/plain';
        // A decoded body (Content-Encoding) answers with the bytes as sent, kept beside it; none
        // are kept when redaction masked the body (then the masked, decoded body is all there is).
        const sent = r.extra.decoded === true ? await services.store.requests.getFile(token.uuid, r.uuid, SENT_BODY_FILE_ID) : null;
        if (sent) {
          ctx.body = sent;
          return;
        }
        // A body kept in a file is streamed from it rather than read whole.
        const stream = bodyStream(r);
        if (stream) ctx.length = r.size;
        ctx.body = stream ?? r.body;
      },
    }),
    route({
      method: 'delete',
      path: base,
      summary: `Delete a captured request${same(base)}`,
      auth: 'token',
      response: { status: 204 },
      handler: async (ctx, { services }) => {
        const token = await loadToken(ctx, services, ctx.params.token_id!);
        const r = await loadRequest(services, token, ctx.params.request_id!);
        if (await services.store.requests.delete(token.uuid, r.uuid)) publishDeleted(services, token.uuid, { uuid: r.uuid });
      },
    }),
    ...[base, `${base}/note`].map((path) =>
      route({
        method: 'put',
        path,
        summary: (path === base ? 'Set the note of a request (same as PUT .../note)' : 'Set the note of a request') + (path === base ? '' : same(path)),
        auth: 'token',
        body: NoteBody,
        // 404 for an unknown token or request comes before a bad body's 422.
        bodyParsedByService: true,
        response: { status: 200, schema: RequestView },
        handler: async (ctx, { services }) => {
          const token = await loadToken(ctx, services, ctx.params.token_id!);
          const r = await loadRequest(services, token, ctx.params.request_id!);
          const body = parsed(NoteBody, ctx.request.body);
          const updated = await services.store.requests.update(token.uuid, r.uuid, { note: body.note, updated_at: services.clock.now() });
          return requestView(updated!, token);
        },
      }),
    ),
  ];
}

/** Deleting all (or the matching) requests; both spellings. */
const deleteManyRoutes = ['/token/{token_id}/request', '/token/{token_id}/requests'].map((path) =>
  route({
    method: 'delete',
    path,
    summary: path.endsWith('/request') ? 'Delete all (or the matching) requests' : 'Delete all (or the matching) requests (same as DELETE /token/{token_id}/request)',
    auth: 'token',
    query: RequestFilterQuery,
    response: { status: 204 },
    handler: async (ctx, { services }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      publishDeletedMany(ctx, services, token.uuid, await services.store.requests.deleteMany(token.uuid, filterOf(services, ctx.input.query)));
    },
  }),
);

/** The captured requests of a token (api/requests.md). Order matters: `export` and `wait` before `{request_id}`. */
export const requestRoutes: ReadonlyArray<Route<RequestsDeps>> = [
  route({
    method: 'get',
    path: '/token/{token_id}/requests',
    summary: 'List captured requests',
    auth: 'token-view',
    query: RequestListQuery,
    response: { status: 200, schema: RequestPage },
    handler: async (ctx, { services }) => {
      const token = await loadTokenForViewing(ctx, services, ctx.params.token_id!);
      const q = ctx.input.query;
      const { page, per_page, sorting } = q;
      const result = await services.store.requests.list(token.uuid, { ...filterOf(services, q), sorting, page, perPage: per_page });
      const from = result.items.length ? (page - 1) * per_page + 1 : 0;
      return {
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
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/requests/export',
    summary: 'CSV or HAR 1.2 (format=har) export of the (matching) requests; HAR entries carry the response sent back. At most 3 exports of a token a minute (429 with Retry-After beyond)',
    auth: 'token',
    query: ExportQuery,
    response: { status: 200, type: 'text/csv' },
    handler: async (ctx, { services }) => {
      const { store, clock } = services;
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const q = ctx.input.query;
      // An export reads up to every stored request of the token: a few a minute per token (CSV or HAR).
      await limitReadsPerMinute(store, `export:token:${token.uuid}`, clock.now(), EXPORTS_PER_MINUTE, `Too many exports of this token: at most ${EXPORTS_PER_MINUTE} per minute`);
      // Streamed a page at a time (export.ts): a token may keep up to MAX_REQUEST_LIMIT requests.
      const spec = { token, filter: filterOf(services, q), sorting: q.sorting, limit: q.per_page ?? Math.max(token.request_limit, 1) };
      if (q.format === 'har') {
        ctx.type = 'application/json; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="requests-${token.uuid}.har"`);
        ctx.body = harExport(store, spec);
        return;
      }
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="requests-${token.uuid}.csv"`);
      ctx.body = csvExport(store, spec);
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/requests/wait',
    summary:
      'Wait for a request matching `query` (the search language) newer than `after`: answers at once with the newest stored match, else with the first one to arrive (HTTP, e-mail or DNS), else 408 after `timeout` seconds',
    auth: 'token',
    query: WaitQuery,
    response: { status: 200, schema: RequestView },
    handler: async (ctx, { services }) => {
      await waitForRequest(ctx, services, await loadToken(ctx, services, ctx.params.token_id!), ctx.input.query);
    },
  }),
  ...oneRequestRoutes('request'),
  ...oneRequestRoutes('requests'),
  ...deleteManyRoutes,
];

export function requestsRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), requestRoutes, { services, outbound: createOutboundClient(services.config) });
}
