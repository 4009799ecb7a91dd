// Loads the token named in a route and checks the caller may open it.
import type { ParameterizedContext } from 'koa';
import { offeredPassword, readsOnly } from '../auth/access.js';
import { clientIp } from '../capture/client-ip.js';
import { Forbidden } from '../errors.js';
import type { TokenRecord } from '../store/types.js';
import { openShared, openToken, type TokenCredentials } from '../tokens/access.js';
import type { AppState, HttpServices } from './services.js';

/**
 * The token, when the caller may open it for what the route does: a GET reads, every other method
 * changes (core/auth/access.ts authorizeToken decides; a token password only reads).
 */
export async function loadToken(ctx: ParameterizedContext<AppState>, services: HttpServices, idOrAlias: string): Promise<TokenRecord> {
  // A share link is view-only: every route but the few that load with loadTokenForViewing refuses it.
  if (offeredShare(ctx) !== undefined) throw new Forbidden("A share link only views the token's requests; this needs the API key or password");
  return openToken(services.store, idOrAlias, readsOnly(ctx.method) ? 'read' : 'write', tokenCredentials(ctx, services), services.clock.now());
}

/** The caller's credentials for a token: API key (ctx.state.caller), the password offered, checked with the throttle of wrong guesses. */
export function tokenCredentials(ctx: ParameterizedContext<AppState>, services: HttpServices): TokenCredentials {
  const address = callerAddress(ctx, services);
  return {
    caller: ctx.state.caller,
    password: offeredPassword(ctx.query, ctx.get('authorization') || undefined),
    checkPassword: (token, password) => services.tokens.passwords.check(token, password, address),
  };
}

/** The caller's address, as captures record it (X-Forwarded-For only from TRUSTED_PROXIES): what wrong passwords count against. */
export function callerAddress(ctx: ParameterizedContext<AppState>, services: Pick<HttpServices, 'config'>): string {
  return clientIp(ctx.req, services.config.TRUSTED_PROXIES);
}

/** The share secret offered with a request: the `Share-Key` header or `?share=` (EventSource cannot send headers). */
export function offeredShare(ctx: ParameterizedContext<AppState>): string | undefined {
  const header = ctx.get('share-key');
  if (header) return header;
  const q = ctx.query.share;
  return typeof q === 'string' && q !== '' ? q : undefined;
}

/**
 * For the routes that only read a token's requests (list, one request, its body and files, the live
 * stream): a share link opens them; without one, the same check as loadToken.
 */
export async function loadTokenForViewing(ctx: ParameterizedContext<AppState>, services: HttpServices, idOrAlias: string): Promise<TokenRecord> {
  const secret = offeredShare(ctx);
  if (secret === undefined) return loadToken(ctx, services, idOrAlias);
  return openShared(services.store, idOrAlias, secret, services.clock.now());
}

/** Builds `?page=N` links of a Laravel-style page envelope. */
export function pageEnvelope<T>(ctx: ParameterizedContext<AppState>, baseUrl: string, data: T[], total: number, page: number, perPage: number) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const path = baseUrl + ctx.path;
  const link = (p: number) => {
    const q = new URLSearchParams(ctx.querystring);
    q.set('page', String(p));
    return `${path}?${q.toString()}`;
  };
  const from = data.length ? (page - 1) * perPage + 1 : null;
  return {
    data,
    current_page: page,
    first_page_url: link(1),
    from,
    last_page: lastPage,
    last_page_url: link(lastPage),
    next_page_url: page < lastPage ? link(page + 1) : null,
    path,
    per_page: perPage,
    prev_page_url: page > 1 ? link(page - 1) : null,
    to: from === null ? null : from + data.length - 1,
    total,
  };
}

export function publicBaseUrl(ctx: ParameterizedContext<AppState>, services: HttpServices): string {
  return services.config.baseUrl ?? `${ctx.protocol}://${ctx.host}`;
}
