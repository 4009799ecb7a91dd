import Router from '@koa/router';
import { fromZod } from '../../errors.js';
import type { TokenRecord } from '../../store/types.js';
import { TemplateCreateBody, TemplateUpdateBody, type TemplateService } from '../../templates/service.js';
import type { Step } from '../../workflows/document.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, pageEnvelope, publicBaseUrl } from '../token-access.js';
import { TemplateView } from '../../templates/templates.schema.js';
import { TemplateListQuery } from './templates.schema.js';

interface TemplatesDeps {
  services: HttpServices;
  templates: TemplateService;
  tokenSteps: (token: TokenRecord) => Promise<Step[]>;
}

const route = routeFor<TemplatesDeps>();
const auth = { user: 'Templates' };
/** A template saved from a token's chain names the token, so its secret parameters come along. */
const FromToken = TemplateCreateBody.pick({ from_token: true });
const id = (raw: string | undefined) => (/^\d{1,15}$/.test(raw ?? '') ? Number(raw) : NaN);

/** The Templates API (api/templates.md). */
export const templateRoutes = [
  route({
    method: 'post',
    path: '/templates',
    summary: 'Create an action template (actions and predefined variables; from_token: the token whose chain they were copied from, whose stored secrets the markers stand for)',
    auth,
    body: TemplateCreateBody,
    bodyParsedByService: true,
    response: { status: 201, schema: TemplateView },
    handler: async (ctx, { services, templates, tokenSteps }) => {
      // Only `from_token` is read here (the service parses the rest): the token's actions API shows
      // secrets as the marker; a marker in an action of the same uuid stands for that action's stored secret.
      const from = FromToken.safeParse(ctx.request.body ?? {});
      if (!from.success) throw fromZod(from.error);
      const previous = from.data.from_token ? await tokenSteps(await loadToken(ctx, services, from.data.from_token)) : [];
      return templates.create(ctx.input.userId, ctx.request.body, previous);
    },
  }),
  route({
    method: 'get',
    path: '/templates',
    summary: "List the caller's action templates",
    auth,
    query: TemplateListQuery,
    response: { status: 200, schema: pageOf(TemplateView) },
    handler: async (ctx, { services, templates }) => {
      const q = ctx.input.query;
      const page = await templates.list(ctx.input.userId, q.page, q.per_page);
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.page, q.per_page);
    },
  }),
  route({
    method: 'get',
    path: '/templates/{id}',
    summary: 'Get a template',
    auth,
    response: { status: 200, schema: TemplateView },
    handler: (ctx, { templates }) => templates.get(ctx.input.userId, id(ctx.params.id)),
  }),
  route({
    method: 'put',
    path: '/templates/{id}',
    summary: 'Update a template',
    auth,
    body: TemplateUpdateBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TemplateView },
    handler: (ctx, { templates }) => templates.update(ctx.input.userId, id(ctx.params.id), ctx.request.body),
  }),
  route({
    method: 'delete',
    path: '/templates/{id}',
    summary: 'Delete a template',
    auth,
    response: { status: 204 },
    handler: async (ctx, { templates }) => {
      await templates.delete(ctx.input.userId, id(ctx.params.id));
    },
  }),
];

export function templatesRouter(services: HttpServices, templates: TemplateService, tokenSteps: (token: TokenRecord) => Promise<Step[]>): Router<AppState> {
  return mountRoutes(new Router<AppState>(), templateRoutes, { services, templates, tokenSteps });
}
