import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { requireUser } from '../../auth/access.js';
import { Conflict, NotFound, fromZod } from '../../errors.js';
import type { GlobalVariableRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
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
const owner = (ctx: ParameterizedContext<AppState>) => `user:${requireUser(ctx.state.caller, 'Global variables')}`;

export function globalsRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock } = services;

  async function load(ctx: ParameterizedContext<AppState>) {
    const g = await store.globals.getById(owner(ctx), Number(ctx.params.id));
    if (!g) throw new NotFound('Global variable not found');
    return g;
  }

  router.post('/global-variables', async (ctx) => {
    const o = owner(ctx);
    const body = GlobalBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    ctx.body = view(await store.globals.set(o, body.data.name, body.data.value, clock.now()));
  });

  router.get('/global-variables', async (ctx) => {
    const o = owner(ctx);
    const q = ListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await store.globals.list(o, { page: q.data.page, perPage: q.data.per_page, search: q.data.search });
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(view), page.total, q.data.page, q.data.per_page);
  });

  router.get('/global-variables/:id', async (ctx) => {
    ctx.body = view(await load(ctx));
  });

  router.put('/global-variables/:id', async (ctx) => {
    const g = await load(ctx);
    const body = GlobalBody.partial().safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const o = owner(ctx);
    if (body.data.name && body.data.name !== g.name) {
      if (await store.globals.get(o, body.data.name)) throw new Conflict(`A variable named ${body.data.name} exists already`);
      await store.globals.delete(o, g.id);
    }
    ctx.body = view(await store.globals.set(o, body.data.name ?? g.name, body.data.value ?? g.value, clock.now()));
  });

  router.delete('/global-variables/:id', async (ctx) => {
    const g = await load(ctx);
    await store.globals.delete(owner(ctx), g.id);
    ctx.status = 204;
  });

  return router;
}
