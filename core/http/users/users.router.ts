import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { requireAdmin, requireCaller } from '../../auth/access.js';
import { hashApiKey, newApiKey } from '../../auth/secrets.js';
import { Forbidden, NotFound, fromZod } from '../../errors.js';
import type { RealtimeBus } from '../../realtime/bus.js';
import type { ApiKeyRecord, UserRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { UserCreateBody } from './users.schema.js';

const userView = (u: UserRecord) => ({
  id: u.id,
  name: u.name,
  email: u.email,
  premium: u.premium,
  created_at: formatTimestamp(u.created_at),
  updated_at: formatTimestamp(u.updated_at),
});
const keyView = (k: ApiKeyRecord) => ({ id: k.id, user_id: k.user_id, prefix: k.prefix, created_at: formatTimestamp(k.created_at) });

export function usersRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock } = services;

  /** The admin, or the user themself. */
  async function loadUser(ctx: ParameterizedContext<AppState>): Promise<UserRecord> {
    const caller = ctx.state.caller;
    requireCaller(caller);
    const id = Number(ctx.params.user);
    if (caller.kind === 'user' && caller.user.id !== id) throw new Forbidden('You may only manage your own keys');
    const user = Number.isInteger(id) ? await store.users.get(id) : null;
    if (!user) throw new NotFound('User not found');
    return user;
  }

  async function issueKey(userId: number) {
    const key = newApiKey();
    const record = await store.users.addApiKey(userId, hashApiKey(key), key.slice(0, 8), clock.now());
    return { ...keyView(record), api_key: key };
  }

  router.post('/users', async (ctx) => {
    requireAdmin(ctx.state.caller);
    const body = UserCreateBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const now = clock.now();
    const user = await store.users.create({ ...body.data, created_at: now, updated_at: now });
    const key = await issueKey(user.id);
    ctx.status = 201;
    ctx.body = { ...userView(user), api_key: key.api_key, api_key_id: key.id };
  });

  router.get('/users', async (ctx) => {
    requireAdmin(ctx.state.caller);
    ctx.body = { data: (await store.users.list()).map(userView) };
  });

  router.get('/users/me', async (ctx) => {
    const caller = ctx.state.caller;
    requireCaller(caller);
    ctx.body = caller.kind === 'admin' ? { id: null, name: 'administrator', admin: true, premium: true } : { ...userView(caller.user), admin: false };
  });

  router.get('/users/:user', async (ctx) => {
    ctx.body = userView(await loadUser(ctx));
  });

  router.get('/users/:user/api-keys', async (ctx) => {
    const user = await loadUser(ctx);
    ctx.body = { data: (await store.users.listApiKeys(user.id)).map(keyView) };
  });

  router.post('/users/:user/api-keys', async (ctx) => {
    const user = await loadUser(ctx);
    ctx.status = 201;
    ctx.body = await issueKey(user.id);
  });

  router.delete('/users/:user/api-keys/:key', async (ctx) => {
    const user = await loadUser(ctx);
    if (!(await store.users.deleteApiKey(user.id, Number(ctx.params.key)))) throw new NotFound('API key not found');
    // Live streams opened with the key must not outlive it: they check their access again.
    (services.shared?.get('bus') as RealtimeBus | undefined)?.publishAccess({ type: 'user.access_changed', userId: user.id });
    ctx.status = 204;
  });

  return router;
}
