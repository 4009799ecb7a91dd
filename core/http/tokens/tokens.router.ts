import Router from '@koa/router';
import { requireCaller } from '../../auth/access.js';
import { fromZod } from '../../errors.js';
import { tokenView } from '../../tokens/service.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, pageEnvelope, publicBaseUrl } from '../token-access.js';
import { PasswordBody, TokenListQuery } from './tokens.schema.js';

export function tokensRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { tokens, store, clock } = services;

  router.post('/token', async (ctx) => {
    const t = await tokens.create(ctx.state.caller, ctx.request.body, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
    ctx.body = tokenView(t);
  });

  router.get('/token', async (ctx) => {
    const caller = ctx.state.caller;
    requireCaller(caller);
    const q = TokenListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const { page, per_page, order_by, order_direction } = q.data;
    // A user sees their team's tokens (every member's); the administrator key owns none.
    const teamId = caller.kind === 'user' ? caller.user.team_id : -1;
    const result = await store.tokens.list(teamId, { page, perPage: per_page, orderBy: order_by, direction: order_direction });
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), result.items.map(tokenView), result.total, page, per_page);
  });

  router.get('/token/:token', async (ctx) => {
    const t = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = tokenView({ ...t, ...(await store.tokens.stats(t.uuid)) });
  });

  router.put('/token/:token', async (ctx) => {
    const t = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = tokenView(await tokens.update(ctx.state.caller, t, ctx.request.body));
  });

  router.delete('/token/:token', async (ctx) => {
    const t = await loadToken(ctx, services, ctx.params.token!);
    await tokens.delete(t);
    ctx.status = 204;
  });

  router.put('/token/:token/password', async (ctx) => {
    const t = await loadToken(ctx, services, ctx.params.token!);
    const body = PasswordBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    ctx.body = tokenView(await tokens.setPassword(ctx.state.caller, t, body.data.password, body.data.old_password));
  });

  router.put('/token/:token/alias', async (ctx) => {
    const t = await loadToken(ctx, services, ctx.params.token!);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    ctx.body = tokenView(await tokens.setAlias(ctx.state.caller, t, body.alias));
  });

  router.put('/token/:token/cors/toggle', async (ctx) => {
    const t = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = { enabled: await tokens.toggleCors(t) };
  });

  void clock;
  return router;
}
