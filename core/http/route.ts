// A route is one object: method, path, who may call it, its input and answer schemas, its handler.
// The same objects are mounted on Koa routers (mountRoutes) and described in /openapi.json
// (core/http/openapi.ts), so the two cannot drift.
import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { requireAdmin, requireCaller, requireUser, requireUserManager } from '../auth/access.js';
import { fromZod } from '../errors.js';
import type { AppState } from './services.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head'; // the last two: capture URLs (core/capture/capture.routes.ts)

/**
 * Who may call a route, beyond the user-type check every route gets in core/http/app.ts.
 * The mount helper applies 'caller', 'admin' and `{ user }`; for the token rules the handler loads
 * the token (loadToken / loadTokenForViewing in core/http/token-access.ts), the rule documents it.
 */
export type AuthRule =
  | 'public' // no key needed
  | 'caller' // any key: a user's or the administrator's
  | 'admin' // the administrator key
  | 'user-manager' // the administrator key, or an Administrator user (managing the team's users)
  | { user: string } // a user's key; the administrator is refused with "<user> belong to users"
  | 'token' // the token's owner; its password too when the route reads (a GET: core/auth/access.ts authorizeToken)
  | 'token-view'; // as 'token', or the token's share link

/** The success answer: its status and, for JSON, its zod schema; `type` for other media types. */
export interface RouteResponse {
  status: number;
  schema?: z.ZodType;
  type?: string;
}

/** What the document needs of a route (the capture URLs, served outside Koa, describe themselves with it too). */
export interface RouteDoc {
  method: Method;
  /** OpenAPI form: `/groups/{group_id}`; a last `{path}` marked in `rest` matches any number of segments. */
  path: string;
  operationId?: string;
  summary: string;
  auth: AuthRule;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: RouteResponse;
  /** The name of a last path parameter that takes the rest of the path (`/app/{path}`). */
  rest?: string;
  /**
   * The domain service parses the body itself (after checks of its own, e.g. that databases are
   * configured, so its 4xx order stays): `body` then only documents it and the handler reads ctx.request.body.
   */
  bodyParsedByService?: true;
}

type Parsed<S, Else> = S extends z.ZodType ? z.output<S> : Else;
type Auth<A> = A extends { user: string } ? { userId: number } : unknown;

/** The parsed input a handler receives on `ctx.input` (no body when the service parses it: `S` is `bodyParsedByService`). */
export type RouteInput<P, Q, B, A, S = undefined> = { params: Parsed<P, Record<string, string>>; query: Parsed<Q, undefined>; body: S extends true ? undefined : Parsed<B, undefined> } & Auth<A>;
export type RouteContext<I> = ParameterizedContext<AppState> & { input: I };

/** A route with its handler. The handler returns the JSON answer, or sets ctx.body itself (streams, files) and returns nothing. */
export interface Route<D> extends RouteDoc {
  handler: (ctx: RouteContext<never>, deps: D) => unknown;
}

interface RouteSpec<D, P, Q, B, A extends AuthRule, S extends true | undefined> extends Omit<RouteDoc, 'params' | 'query' | 'body' | 'auth' | 'bodyParsedByService'> {
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  bodyParsedByService?: S;
  handler: (ctx: RouteContext<RouteInput<P, Q, B, A, S>>, deps: D) => unknown;
}

/** `const route = routeFor<Deps>()`, then `route({...})`: the handler's `ctx.input` is typed from the schemas. */
export function routeFor<D>() {
  return <
    P extends z.ZodObject | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
    const A extends AuthRule = AuthRule,
    S extends true | undefined = undefined,
  >(
    spec: RouteSpec<D, P, Q, B, A, S>,
  ): Route<D> => spec as unknown as Route<D>;
}

/**
 * A page envelope of `item`s (core/http/token-access.ts pageEnvelope), with `extra` fields beside
 * them where a list adds some; /openapi.json refers to the shared Page component.
 */
export function pageOf(item: z.ZodType, extra?: z.ZodObject): z.ZodType {
  const s = PageEnvelope.extend({ data: z.array(item), ...extra?.shape });
  PAGE_ITEMS.set(s, { item, extra });
  return s;
}
/** `{ data: [item, ...] }`. */
export const listOf = (item: z.ZodType) => z.object({ data: z.array(item) });

/** The page envelope of the paged lists. */
export const PageEnvelope = z.object({
  data: z.array(z.unknown()),
  current_page: z.number().int(),
  first_page_url: z.string(),
  from: z.number().int().nullable(),
  last_page: z.number().int(),
  last_page_url: z.string(),
  next_page_url: z.string().nullable(),
  path: z.string(),
  per_page: z.number().int(),
  prev_page_url: z.string().nullable(),
  to: z.number().int().nullable(),
  total: z.number().int(),
});
/** Schemas made by pageOf, to the schema of their items and of their extra fields. */
export const PAGE_ITEMS = new WeakMap<z.ZodType, { item: z.ZodType; extra?: z.ZodObject }>();

/** `/groups/{group_id}` -> `/groups/:group_id` (and the rest parameter -> `*path`). */
export function koaPath(route: Pick<RouteDoc, 'path' | 'rest'>): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === route.rest ? `*${name}` : `:${name}`));
}

/**
 * Whether answers are checked against their declared schemas (a 500 naming the route when not):
 * on under the tests (vitest sets NODE_ENV=test) or with CHECK_RESPONSES=1.
 */
const checkResponses = () => process.env.NODE_ENV === 'test' || process.env.CHECK_RESPONSES === '1';

function applyAuth(ctx: ParameterizedContext<AppState>, auth: AuthRule): number | undefined {
  if (auth === 'caller') requireCaller(ctx.state.caller);
  else if (auth === 'admin') requireAdmin(ctx.state.caller);
  else if (auth === 'user-manager') requireUserManager(ctx.state.caller);
  else if (typeof auth === 'object') return requireUser(ctx.state.caller, auth.user);
  return undefined;
}

/** Parses params, query and body with the route's schemas: a 422 (fromZod) as the hand-written checks answered. */
export function validate(ctx: ParameterizedContext<AppState>, route: RouteDoc): Record<string, unknown> {
  const parse = (schema: z.ZodType | undefined, value: unknown) => {
    if (!schema) return undefined;
    const r = schema.safeParse(value);
    if (!r.success) throw fromZod(r.error);
    return r.data;
  };
  return {
    params: route.params ? parse(route.params, ctx.params) : ctx.params,
    query: parse(route.query, ctx.query),
    body: route.bodyParsedByService ? undefined : parse(route.body, ctx.request.body ?? {}),
  };
}

/** The declared answer, checked: a handler whose JSON does not match its schema is a bug, not the caller's. */
function checkAnswer(ctx: ParameterizedContext<AppState>, route: RouteDoc): void {
  const { status, schema } = route.response;
  if (ctx.status < 200 || ctx.status > 299) return;
  const where = `${route.method.toUpperCase()} ${route.path}`;
  if (ctx.status !== status) throw new Error(`${where} answered ${ctx.status}, declares ${status}`);
  if (!schema) return;
  const body = ctx.body;
  if (body === undefined || body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  const r = schema.safeParse(JSON.parse(JSON.stringify(body)));
  if (!r.success) throw new Error(`${where} answered a body that does not match its declared schema: ${JSON.stringify(r.error.issues.slice(0, 5))}`);
}

/** Mounts route objects on a router: auth rule, then validate, then the handler, then (in tests) the answer check. */
export function mountRoutes<D>(router: Router<AppState>, routes: ReadonlyArray<Route<D>>, deps: D): Router<AppState> {
  const check = checkResponses();
  for (const route of routes) {
    router[route.method](koaPath(route), async (ctx) => {
      const userId = applyAuth(ctx, route.auth);
      const input = validate(ctx, route);
      if (userId !== undefined) input.userId = userId;
      const routeCtx = Object.assign(ctx, { input }) as unknown as RouteContext<never>;
      const answer = await route.handler(routeCtx, deps);
      if (answer !== undefined) {
        ctx.body = answer;
        ctx.status = route.response.status;
      } else if (route.response.status === 204 && ctx.body === undefined) ctx.status = 204;
      if (check) checkAnswer(ctx, route);
    });
  }
  return router;
}
