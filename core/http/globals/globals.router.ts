import Router from '@koa/router';
import { z } from 'zod';
import { Conflict, NotFound } from '../../errors.js';
import type { GlobalVariableRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import { globalsChanged } from '../../globals/cache.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { pageNumber, perPage } from '../paging.js';

export const GlobalBody = z.object({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _, . or -'),
  value: z.string().max(65_536),
});
/** A global variable as the API returns it (/openapi.json). */
export const GlobalView = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  team_id: z.null(),
  name: z.string(),
  value: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
const ListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
  search: z.string().max(64).optional(),
});

const view = (g: GlobalVariableRecord) => ({
  id: g.id,
  user_id: Number(g.owner.split(':')[1]),
  team_id: null,
  name: g.name,
  value: g.value,
  created_at: formatTimestamp(g.created_at),
  updated_at: formatTimestamp(g.updated_at),
});

/** Global variables belong to users; they are shared by all of a user's tokens. */
const ownerOf = (userId: number) => `user:${userId}`;
const auth = { user: 'Global variables' };
const route = routeFor<HttpServices>();

async function load({ store }: HttpServices, owner: string, id: string | undefined) {
  const g = await store.globals.getById(owner, Number(id));
  if (!g) throw new NotFound('Global variable not found');
  return g;
}

export const globalRoutes = [
  route({
    method: 'post',
    path: '/global-variables',
    summary: 'Create or replace a global variable',
    auth,
    body: GlobalBody,
    response: { status: 200, schema: GlobalView },
    handler: async (ctx, { store, clock }) => {
      const o = ownerOf(ctx.input.userId);
      // Runs read the variables through a short cache (core/globals/cache.ts): drop the account's entry.
      const g = await store.globals.set(o, ctx.input.body.name, ctx.input.body.value, clock.now()).finally(() => globalsChanged(store.globals, o));
      return view(g);
    },
  }),
  route({
    method: 'get',
    path: '/global-variables',
    summary: 'List global variables',
    auth,
    query: ListQuery,
    response: { status: 200, schema: pageOf(GlobalView) },
    handler: async (ctx, services) => {
      const q = ctx.input.query;
      const page = await services.store.globals.list(ownerOf(ctx.input.userId), { page: q.page, perPage: q.per_page, search: q.search });
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(view), page.total, q.page, q.per_page);
    },
  }),
  route({
    method: 'get',
    path: '/global-variables/{id}',
    summary: 'Get a global variable',
    auth,
    response: { status: 200, schema: GlobalView },
    handler: async (ctx, services) => view(await load(services, ownerOf(ctx.input.userId), ctx.params.id)),
  }),
  route({
    method: 'put',
    path: '/global-variables/{id}',
    summary: 'Update a global variable',
    auth,
    body: GlobalBody.partial(),
    response: { status: 200, schema: GlobalView },
    handler: async (ctx, services) => {
      const { store, clock } = services;
      const o = ownerOf(ctx.input.userId);
      const g = await load(services, o, ctx.params.id);
      const body = ctx.input.body;
      if (body.name && body.name !== g.name) {
        if (await store.globals.get(o, body.name)) throw new Conflict(`A variable named ${body.name} exists already`);
        await store.globals.delete(o, g.id).finally(() => globalsChanged(store.globals, o));
      }
      return view(await store.globals.set(o, body.name ?? g.name, body.value ?? g.value, clock.now()).finally(() => globalsChanged(store.globals, o)));
    },
  }),
  route({
    method: 'delete',
    path: '/global-variables/{id}',
    summary: 'Delete a global variable',
    auth,
    response: { status: 204 },
    handler: async (ctx, services) => {
      const o = ownerOf(ctx.input.userId);
      const g = await load(services, o, ctx.params.id);
      await services.store.globals.delete(o, g.id).finally(() => globalsChanged(services.store.globals, o));
    },
  }),
];

export function globalsRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), globalRoutes, services);
}
