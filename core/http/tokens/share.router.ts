// A token's share link: POST makes one (or a new one, which invalidates the old), GET says whether
// there is one (never its secret), DELETE revokes it. Managing the link needs full access to the
// token (loadToken); the link itself only views requests (token-access.ts loadTokenForViewing).
import Router from '@koa/router';
import { ShareService } from '../../tokens/share.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, publicBaseUrl } from '../token-access.js';

/** The page's address of a shared token (a hash route: the secret never reaches a server log as a path). */
export function shareUrl(base: string, tokenId: string, secret: string): string {
  return `${base}/#/share/${tokenId}/${secret}`;
}

export function shareRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const shares = new ShareService(services.store, services.clock, services.tokens);

  router.post('/token/:token/share', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const { secret, created_at } = await shares.create(token);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { url: shareUrl(publicBaseUrl(ctx, services), token.uuid, secret), secret, created_at: formatTimestamp(created_at) };
  });

  router.get('/token/:token/share', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const s = await shares.status(token);
    ctx.body = { active: s.active, created_at: formatTimestamp(s.created_at) };
  });

  router.delete('/token/:token/share', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    await shares.revoke(token);
    ctx.status = 204;
  });

  return router;
}
