import Router from '@koa/router';
import { groupLimit } from '../../auth/access.js';
import { NotFound } from '../../errors.js';
import type { GroupRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { GroupBody, GroupView } from '../../groups/groups.schema.js';
import { GroupListQuery } from './groups.schema.js';

export const groupView = (g: GroupRecord) => ({
  id: g.id,
  team_id: null,
  user_id: g.user_id,
  name: g.name,
  created_at: formatTimestamp(g.created_at),
  updated_at: formatTimestamp(g.updated_at),
});

const route = routeFor<HttpServices>();
const auth = { user: 'Groups' };

/** A user limited to groups lists those groups (the team's, made by others), at most 100 of them. */
async function limitedGroups({ store }: HttpServices, ids: readonly number[], page: number, perPage: number): Promise<{ items: GroupRecord[]; total: number }> {
  const all = (await Promise.all(ids.map((id) => store.groups.get(id)))).filter((g): g is GroupRecord => g !== null).sort((a, b) => a.id - b.id);
  return { items: all.slice((page - 1) * perPage, page * perPage), total: all.length };
}

async function loadGroup({ store }: HttpServices, owner: number, groupId: string | undefined): Promise<GroupRecord> {
  const id = Number(groupId);
  const g = Number.isInteger(id) ? await store.groups.get(id) : null;
  if (!g || g.user_id !== owner) throw new NotFound('Group not found');
  return g;
}

export const groupRoutes = [
  route({
    method: 'post',
    path: '/groups',
    summary: 'Create a group',
    auth,
    body: GroupBody,
    response: { status: 200, schema: GroupView },
    handler: async (ctx, { store, clock }) => {
      const now = clock.now();
      return groupView(await store.groups.create({ user_id: ctx.input.userId, name: ctx.input.body.name, created_at: now, updated_at: now }));
    },
  }),
  route({
    method: 'get',
    path: '/groups',
    summary: 'List groups',
    auth,
    query: GroupListQuery,
    response: { status: 200, schema: pageOf(GroupView) },
    handler: async (ctx, services) => {
      const { page, per_page } = ctx.input.query;
      const limit = groupLimit(ctx.state.caller);
      const found = limit ? await limitedGroups(services, limit, page, per_page) : await services.store.groups.list(ctx.input.userId, page, per_page);
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), found.items.map(groupView), found.total, page, per_page);
    },
  }),
  route({
    method: 'get',
    path: '/groups/{group_id}',
    summary: 'Get a group',
    auth,
    response: { status: 200, schema: GroupView },
    handler: async (ctx, services) => groupView(await loadGroup(services, ctx.input.userId, ctx.params.group_id)),
  }),
  route({
    method: 'put',
    path: '/groups/{group_id}',
    summary: 'Rename a group',
    auth,
    body: GroupBody,
    response: { status: 200, schema: GroupView },
    handler: async (ctx, services) => {
      const g = await loadGroup(services, ctx.input.userId, ctx.params.group_id);
      return groupView((await services.store.groups.update(g.id, ctx.input.body.name, services.clock.now()))!);
    },
  }),
  route({
    method: 'delete',
    path: '/groups/{group_id}',
    summary: 'Delete a group',
    auth,
    response: { status: 204 },
    handler: async (ctx, services) => {
      const g = await loadGroup(services, ctx.input.userId, ctx.params.group_id);
      await services.store.groups.delete(g.id);
      await services.store.tokens.clearGroup(g.id);
      await services.store.schedules.clearGroup(g.id);
    },
  }),
];

export function groupsRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), groupRoutes, services);
}
