import Router from '@koa/router';
import { z } from 'zod';
import { listedGroups } from '../../auth/access.js';
import { fromZod } from '../../errors.js';
import { AliasBody, PasswordBody, TokenCreateSchema, TokenUpdateSchema, TokenView } from '../../tokens/tokens.schema.js';
import { tokenView } from '../../tokens/service.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { callerAddress, loadToken, pageEnvelope, publicBaseUrl } from '../token-access.js';
import { TokenListQuery } from './tokens.schema.js';

const route = routeFor<HttpServices>();

/** The token service parses create/update/alias bodies itself (the request limit is a setting). */
export const tokenRoutes = [
  route({
    method: 'post',
    path: '/token',
    summary: 'Create a token',
    auth: 'public',
    body: TokenCreateSchema,
    bodyParsedByService: true,
    response: { status: 200, schema: TokenView },
    handler: async (ctx, { tokens }) => tokenView(await tokens.create(ctx.state.caller, ctx.request.body, { ip: ctx.ip, userAgent: ctx.get('user-agent') })),
  }),
  route({
    method: 'get',
    path: '/token',
    summary: "List the caller's tokens",
    auth: 'caller',
    query: TokenListQuery,
    response: { status: 200, schema: pageOf(TokenView) },
    handler: async (ctx, services) => {
      const caller = ctx.state.caller;
      const { page, per_page, order_by, order_direction, query, group_id } = ctx.input.query;
      // A user sees their team's tokens (every member's; only their groups' when limited to groups);
      // the administrator key owns none.
      const teamId = caller.kind === 'user' ? caller.user.team_id : -1;
      const result = await services.store.tokens.list(teamId, { page, perPage: per_page, orderBy: order_by, direction: order_direction, search: query || undefined, groupIds: listedGroups(caller, group_id) });
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), result.items.map(tokenView), result.total, page, per_page);
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}',
    summary: 'Get a token',
    auth: 'token',
    response: { status: 200, schema: TokenView },
    handler: async (ctx, services) => {
      const t = await loadToken(ctx, services, ctx.params.token_id!);
      return tokenView({ ...t, ...(await services.store.tokens.stats(t.uuid)) });
    },
  }),
  route({
    method: 'put',
    path: '/token/{token_id}',
    summary: 'Update a token',
    auth: 'token',
    body: TokenUpdateSchema,
    bodyParsedByService: true,
    response: { status: 200, schema: TokenView },
    handler: async (ctx, services) => tokenView(await services.tokens.update(ctx.state.caller, await loadToken(ctx, services, ctx.params.token_id!), ctx.request.body)),
  }),
  route({
    method: 'delete',
    path: '/token/{token_id}',
    summary: 'Delete a token and its requests',
    auth: 'token',
    response: { status: 204 },
    handler: async (ctx, services) => {
      await services.tokens.delete(await loadToken(ctx, services, ctx.params.token_id!));
    },
  }),
  route({
    method: 'put',
    path: '/token/{token_id}/password',
    summary: 'Set the token password (premium)',
    auth: 'token',
    body: PasswordBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TokenView },
    handler: async (ctx, services) => {
      // Loaded before the body is read: an unknown token is a 404 whatever the body (as before).
      const t = await loadToken(ctx, services, ctx.params.token_id!);
      const body = PasswordBody.safeParse(ctx.request.body ?? {});
      if (!body.success) throw fromZod(body.error);
      return tokenView(await services.tokens.setPassword(ctx.state.caller, t, body.data.password, body.data.old_password, callerAddress(ctx, services)));
    },
  }),
  route({
    method: 'put',
    path: '/token/{token_id}/alias',
    summary: 'Set the token alias (premium)',
    auth: 'token',
    body: AliasBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TokenView },
    handler: async (ctx, services) => {
      const t = await loadToken(ctx, services, ctx.params.token_id!);
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      return tokenView(await services.tokens.setAlias(ctx.state.caller, t, body.alias));
    },
  }),
  route({
    method: 'post',
    path: '/token/{token_id}/disassociate',
    summary: 'Take the token out of its account (it becomes anonymous: whoever knows its ID may open it)',
    auth: 'token',
    response: { status: 200, schema: TokenView },
    handler: async (ctx, services) => tokenView(await services.tokens.disassociate(await loadToken(ctx, services, ctx.params.token_id!))),
  }),
  route({
    method: 'put',
    path: '/token/{token_id}/cors/toggle',
    summary: 'Toggle CORS headers on capture responses',
    auth: 'token',
    response: { status: 200, schema: z.object({ enabled: z.boolean() }) },
    handler: async (ctx, services) => ({ enabled: await services.tokens.toggleCors(await loadToken(ctx, services, ctx.params.token_id!)) }),
  }),
];

export function tokensRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), tokenRoutes, services);
}
