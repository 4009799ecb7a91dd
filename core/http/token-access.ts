// Loads the token named in a route and checks the caller may open it.
import type { ParameterizedContext } from 'koa';
import { authorizeToken, offeredPassword, type Caller } from '../auth/access.js';
import { NotFound } from '../errors.js';
import type { Millis, Store, TokenRecord } from '../store/types.js';
import { isExpired } from '../tokens/expiry.js';
import type { AppState, HttpServices } from './services.js';

export async function loadToken(ctx: ParameterizedContext<AppState>, services: HttpServices, idOrAlias: string): Promise<TokenRecord> {
  return openToken(services.store, ctx.state.caller, idOrAlias, offeredPassword(ctx.query, ctx.get('authorization') || undefined), services.clock.now());
}

/** The same check without a request context: live streams run it again when access may have changed. */
export async function openToken(store: Store, caller: Caller, idOrAlias: string, password: string | undefined, now: Millis): Promise<TokenRecord> {
  const token = await store.tokens.resolve(idOrAlias);
  // Expired tokens are gone at once, as on capture URLs, though the cleanup job deletes them later.
  if (!token || isExpired(token, now)) throw new NotFound('Token not found');
  authorizeToken(caller, token, password);
  return token;
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
