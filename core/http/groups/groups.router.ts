import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { requireUser } from '../../auth/access.js';
import { NotFound, fromZod } from '../../errors.js';
import type { GroupRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { GroupBody, GroupListQuery } from './groups.schema.js';

export const groupView = (g: GroupRecord) => ({
  id: g.id,
  team_id: null,
  user_id: g.user_id,
  name: g.name,
  created_at: formatTimestamp(g.created_at),
  updated_at: formatTimestamp(g.updated_at),
});

const userId = (ctx: ParameterizedContext<AppState>) => requireUser(ctx.state.caller, 'Groups');

export function groupsRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock } = services;

  async function loadGroup(ctx: ParameterizedContext<AppState>): Promise<GroupRecord> {
    const owner = userId(ctx);
    const id = Number(ctx.params.group);
    const g = Number.isInteger(id) ? await store.groups.get(id) : null;
    if (!g || g.user_id !== owner) throw new NotFound('Group not found');
    return g;
  }

  router.post('/groups', async (ctx) => {
    const owner = userId(ctx);
    const body = GroupBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const now = clock.now();
    ctx.body = groupView(await store.groups.create({ user_id: owner, name: body.data.name, created_at: now, updated_at: now }));
  });

  router.get('/groups', async (ctx) => {
    const owner = userId(ctx);
    const q = GroupListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await store.groups.list(owner, q.data.page, q.data.per_page);
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(groupView), page.total, q.data.page, q.data.per_page);
  });

  router.get('/groups/:group', async (ctx) => {
    ctx.body = groupView(await loadGroup(ctx));
  });

  router.put('/groups/:group', async (ctx) => {
    const g = await loadGroup(ctx);
    const body = GroupBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    ctx.body = groupView((await store.groups.update(g.id, body.data.name, clock.now()))!);
  });

  router.delete('/groups/:group', async (ctx) => {
    const g = await loadGroup(ctx);
    await store.groups.delete(g.id);
    await store.tokens.clearGroup(g.id);
    ctx.status = 204;
  });

  return router;
}
