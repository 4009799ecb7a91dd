// A token's share link: POST makes one (or a new one, which invalidates the old), GET says whether
// there is one (never its secret), DELETE revokes it. Managing the link needs full access to the
// token (loadToken); the link itself only views requests (token-access.ts loadTokenForViewing).
import Router from '@koa/router';
import { ShareService } from '../../tokens/share.js';
import { formatTimestamp } from '../../util/time.js';
import { mountRoutes, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { ShareCreated, ShareStatusView } from '../../tokens/share.schema.js';
import { loadToken, publicBaseUrl } from '../token-access.js';

/** The page's address of a shared token (a hash route: the secret never reaches a server log as a path). */
export function shareUrl(base: string, tokenId: string, secret: string): string {
  return `${base}/#/share/${tokenId}/${secret}`;
}

interface ShareDeps {
  services: HttpServices;
  shares: ShareService;
}
const route = routeFor<ShareDeps>();

export const shareRoutes = [
  route({
    method: 'post',
    path: '/token/{token_id}/share',
    summary:
      'Make a view-only share link of the token (a new one invalidates the old); its secret is shown only in this answer. The link opens the request list, one request, its raw body and files (`Share-Key` header or `?share=`) and the live stream (`?share=`), nothing else',
    auth: 'token',
    response: { status: 201, schema: ShareCreated },
    handler: async (ctx, { services, shares }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const { secret, created_at } = await shares.create(token);
      ctx.set('Cache-Control', 'no-store');
      return { url: shareUrl(publicBaseUrl(ctx, services), token.uuid, secret), secret, created_at: formatTimestamp(created_at) };
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/share',
    summary: 'Whether the token has a share link, since when (never its secret)',
    auth: 'token',
    response: { status: 200, schema: ShareStatusView },
    handler: async (ctx, { services, shares }) => {
      const s = await shares.status(await loadToken(ctx, services, ctx.params.token_id!));
      return { active: s.active, created_at: formatTimestamp(s.created_at) };
    },
  }),
  route({
    method: 'delete',
    path: '/token/{token_id}/share',
    summary: 'Revoke the share link (its live streams end)',
    auth: 'token',
    response: { status: 204 },
    handler: async (ctx, { services, shares }) => {
      await shares.revoke(await loadToken(ctx, services, ctx.params.token_id!));
    },
  }),
];

export function shareRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), shareRoutes, { services, shares: new ShareService(services.store, services.clock, services.tokens) });
}
