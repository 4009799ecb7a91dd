// The HTTP front: API routes on Koa, every other path a capture URL on the plain handler.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { identify, permissionFor, requirePermission } from '../auth/access.js';
import { createCaptureHandler, type CaptureServices } from '../capture/http-capture.js';
import { captureRoutes } from '../capture/capture.routes.js';
import { subdomainMatcher } from '../capture/subdomain.js';
import { errorHandler } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { groupsRouter } from './groups/groups.router.js';
import { openApiDocument, openApiRoutes } from './openapi.js';
import { mountRoutes } from './route.js';
import { originForm } from './request-target.js';
import { requestsRouter } from './requests/requests.router.js';
import { shareRouter } from './tokens/share.router.js';
import { errorLogRouter } from './errors/errors.router.js';
import type { AppState, HttpServices } from './services.js';
import { RESERVED_SEGMENTS } from '../tokens/tokens.schema.js';
import { tokensRouter } from './tokens/tokens.router.js';
import { usersRouter } from './users/users.router.js';

export interface AppOptions {
  /** Extra routers of later modules (actions, schedules, realtime, web page). */
  routers?: Array<Router<AppState>>;
  capture: Pick<CaptureServices, 'sortingKey' | 'pipeline' | 'tokens' | 'metrics'>;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const HASH = 0x23;
const LONGEST_RESERVED = Math.max(...[...RESERVED_SEGMENTS].map((s) => s.length));

export function createApp(services: HttpServices, opts: AppOptions) {
  const { config, store, logger } = services;
  const koa = new Koa<AppState>({ proxy: config.TRUSTED_PROXIES.length > 0 });
  koa.silent = true;

  koa.use(async (ctx, next) => {
    ctx.state.requestId = randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    const started = performance.now();
    await next();
    logger.debug('api', { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) });
  });
  koa.use(errorHandler(logger));
  koa.use(async (ctx, next) => {
    ctx.state.caller = await identify(ctx.get('api-key') || undefined, store, config.ADMIN_API_KEY);
    // User types (Viewer reads, Member changes, Administrator manages users): one check, here.
    requirePermission(ctx.state.caller, permissionFor(ctx.state.caller, ctx.method, ctx.path));
    await next();
  });
  // Room for a base64 set-response of MAX_BODY_BYTES.
  koa.use(jsonBody(Math.max(Math.ceil((config.MAX_BODY_BYTES * 4) / 3) + 64 * 1024, 1024 * 1024)));

  const base = mountRoutes(new Router<AppState>(), openApiRoutes, { document: () => openApiDocument(config.baseUrl, config.MAX_REQUEST_LIMIT) });

  const routers = [base, tokensRouter(services), requestsRouter(services), shareRouter(services), errorLogRouter(services), usersRouter(services), groupsRouter(services), ...(opts.routers ?? [])];
  for (const r of routers) {
    koa.use(r.routes());
    koa.use(r.allowedMethods());
  }
  koa.use((ctx) => {
    ctx.status = 404;
    ctx.body = { message: `No route for ${ctx.method} ${ctx.path}` };
  });

  const api = koa.callback();
  const capture = createCaptureHandler({ ...opts.capture, config, store, clock: services.clock, logger });
  // Null unless CAPTURE_DOMAIN is set: then `<token>.CAPTURE_DOMAIN` captures every path.
  const subdomain = subdomainMatcher(config.CAPTURE_DOMAIN, config.TRUSTED_PROXIES, config.baseUrl);

  /** Node request listener: reserved first segments (and `/`) go to the API, the rest is captured. */
  function handler(req: IncomingMessage, res: ServerResponse): void {
    // `GET http://host/{token}` and `OPTIONS *` are routed and captured as `/{token}` and `/`.
    if (req.url?.charCodeAt(0) !== SLASH) req.url = originForm(req.url ?? '/');
    if (subdomain) {
      const sub = subdomain(req);
      if (sub) return void capture(req, res, sub);
    }
    const url = req.url ?? '/';
    // The first path segment is url[1, end), read no further than one character past the longest
    // reserved segment: a segment that long is none of them (a token's UUID: 36 characters).
    const last = Math.min(url.length, LONGEST_RESERVED + 2);
    let end = 1;
    while (end < last) {
      const c = url.charCodeAt(end);
      if (c === SLASH || c === QUESTION || c === HASH) break;
      end++;
    }
    // Longer than any reserved segment: no lower-casing, no lookup.
    const reserved = end === 1 || (end - 1 <= LONGEST_RESERVED && RESERVED_SEGMENTS.has(url.slice(1, end).toLowerCase()));
    if (reserved) void api(req, res);
    else void capture(req, res);
  }

  return { koa, handler, routes: [...registeredRoutes(routers), ...CAPTURE_ROUTES] };
}

/** A route the service serves: lower-case method and the OpenAPI form of its path (`/token/{token}`). */
export interface RegisteredRoute {
  method: string;
  path: string;
}

/** The capture URLs (core/capture/capture.routes.ts): any method on a token's URL and any path under it (the plain handler, not Koa). */
export const CAPTURE_ROUTES: RegisteredRoute[] = captureRoutes.map(({ method, path }) => ({ method, path }));

/** Every method + path of the routers (HEAD, which the router adds to each GET, left out). */
export function registeredRoutes(routers: Array<Router<AppState>>): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  for (const r of routers) {
    for (const layer of r.stack) {
      const path = String(layer.path).replace(/[:*](\w+)/g, '{$1}');
      for (const m of layer.methods) if (m !== 'HEAD') out.push({ method: m.toLowerCase(), path });
    }
  }
  return out;
}
