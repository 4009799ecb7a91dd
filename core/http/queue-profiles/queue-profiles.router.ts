// Queue Profiles (/queue-profiles): named throttling and ordering for queued actions, per user.
// Actions name one in `queue_profile`; core/actions/queue-profiles.ts runs their jobs.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { MAX_PROFILES } from '../../actions/queue-profiles.js';
import { NotFound, ValidationError } from '../../errors.js';
import type { QueueProfileRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import { listOf, mountRoutes, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { QueueProfileBody, QueueProfileView } from './queue-profiles.schema.js';

const view = (p: QueueProfileRecord) => ({ ...p, created_at: formatTimestamp(p.created_at), updated_at: formatTimestamp(p.updated_at) });
const auth = { user: 'Queue profiles' };
const route = routeFor<HttpServices>();

async function load({ store }: HttpServices, userId: number, id: string | undefined): Promise<QueueProfileRecord> {
  const p = id ? await store.queueProfiles.get(id) : null;
  if (!p || p.user_id !== userId) throw new NotFound('Queue profile not found');
  return p;
}

export const queueProfileRoutes = [
  route({
    method: 'post',
    path: '/queue-profiles',
    summary: 'Create a queue profile',
    auth,
    body: QueueProfileBody,
    response: { status: 200, schema: QueueProfileView },
    handler: async (ctx, { store, clock }) => {
      const userId = ctx.input.userId;
      if ((await store.queueProfiles.list(userId)).length >= MAX_PROFILES) {
        throw new ValidationError(`At most ${MAX_PROFILES} queue profiles per account`, { name: [`at most ${MAX_PROFILES} queue profiles per account`] });
      }
      const now = clock.now();
      return view(await store.queueProfiles.create({ id: randomUUID(), user_id: userId, ...ctx.input.body, created_at: now, updated_at: now }));
    },
  }),
  route({
    method: 'get',
    path: '/queue-profiles',
    summary: 'List queue profiles',
    auth,
    response: { status: 200, schema: listOf(QueueProfileView) },
    handler: async (ctx, { store }) => ({ data: (await store.queueProfiles.list(ctx.input.userId)).map(view) }),
  }),
  route({
    method: 'get',
    path: '/queue-profiles/{id}',
    summary: 'Get a queue profile',
    auth,
    response: { status: 200, schema: QueueProfileView },
    handler: async (ctx, services) => view(await load(services, ctx.input.userId, ctx.params.id)),
  }),
  route({
    method: 'put',
    path: '/queue-profiles/{id}',
    summary: 'Update a queue profile',
    auth,
    body: QueueProfileBody.partial(),
    response: { status: 200, schema: QueueProfileView },
    handler: async (ctx, services) => {
      const current = await load(services, ctx.input.userId, ctx.params.id);
      const changes = Object.fromEntries(Object.entries(ctx.input.body).filter(([, v]) => v !== undefined));
      const updated = await services.store.queueProfiles.update({ ...current, ...changes, updated_at: services.clock.now() });
      if (!updated) throw new NotFound('Queue profile not found');
      return view(updated);
    },
  }),
  route({
    method: 'delete',
    path: '/queue-profiles/{id}',
    // Actions that name it then run as plain queued actions; jobs already queued under it still run in order, unthrottled.
    summary: 'Delete a queue profile',
    auth,
    response: { status: 204 },
    handler: async (ctx, services) => {
      const p = await load(services, ctx.input.userId, ctx.params.id);
      await services.store.queueProfiles.delete(p.user_id, p.id);
    },
  }),
];

export function queueProfilesRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), queueProfileRoutes, services);
}
