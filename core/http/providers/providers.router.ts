import Router from '@koa/router';
import { z } from 'zod';
import { ProviderCreateBody, ProviderUpdateBody, type ProviderService } from '../../providers/service.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { ProviderTypeView, ProviderView } from '../../providers/providers.schema.js';
import { ProviderListQuery } from './providers.schema.js';

interface ProvidersDeps {
  services: HttpServices;
  providers: ProviderService;
  kinds: () => Promise<Array<Record<string, unknown>>>;
}

const route = routeFor<ProvidersDeps>();
const auth = { user: 'Providers' };

/** The Providers API: a user's connected accounts. Credentials go in, never come out. */
export const providerRoutes = [
  route({
    method: 'get',
    path: '/provider-types',
    summary: 'Provider types of the loaded plugins with the JSON Schemas of their fields',
    auth: 'public',
    response: { status: 200, schema: z.array(ProviderTypeView) },
    handler: (_ctx, { kinds }) => kinds(),
  }),
  route({
    method: 'post',
    path: '/providers',
    summary: 'Add a provider (credentials sealed at rest; omitted ones are generated where the type can, e.g. ssh_key)',
    auth,
    body: ProviderCreateBody,
    bodyParsedByService: true,
    response: { status: 201, schema: ProviderView },
    handler: (ctx, { providers }) => providers.create(ctx.input.userId, ctx.request.body),
  }),
  route({
    method: 'get',
    path: '/providers',
    summary: "List the caller's providers (connected accounts; credentials never shown)",
    auth,
    query: ProviderListQuery,
    response: { status: 200, schema: pageOf(ProviderView) },
    handler: async (ctx, { services, providers }) => {
      const q = ctx.input.query;
      const page = await providers.list(ctx.input.userId, { page: q.page, perPage: q.per_page, type: q.type });
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.page, q.per_page);
    },
  }),
  route({
    method: 'get',
    path: '/providers/{id}',
    summary: 'Get a provider',
    auth,
    response: { status: 200, schema: ProviderView },
    handler: (ctx, { providers }) => providers.get(ctx.input.userId, ctx.params.id!),
  }),
  route({
    method: 'put',
    path: '/providers/{id}',
    summary: 'Rename, replace settings, merge credentials (null removes a field)',
    auth,
    body: ProviderUpdateBody,
    bodyParsedByService: true,
    response: { status: 200, schema: ProviderView },
    handler: (ctx, { providers }) => providers.update(ctx.input.userId, ctx.params.id!, ctx.request.body),
  }),
  route({
    method: 'delete',
    path: '/providers/{id}',
    summary: 'Delete a provider',
    auth,
    response: { status: 204 },
    handler: async (ctx, { providers }) => {
      await providers.delete(ctx.input.userId, ctx.params.id!);
    },
  }),
];

export function providersRouter(services: HttpServices, providers: ProviderService, kinds: () => Promise<Array<Record<string, unknown>>>): Router<AppState> {
  return mountRoutes(new Router<AppState>(), providerRoutes, { services, providers, kinds });
}
