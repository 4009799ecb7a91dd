import Router from '@koa/router';
import { z } from 'zod';
import { requireUser } from '../../auth/access.js';
import { fromZod } from '../../errors.js';
import type { ProviderService } from '../../providers/service.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { pageNumber, perPage } from '../paging.js';

const ListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
  type: z.string().max(64).optional(),
});

const WHAT = 'Providers';

/** The Providers API: a user's connected accounts. Credentials go in, never come out. */
export function providersRouter(services: HttpServices, providers: ProviderService, kinds: () => Array<Record<string, unknown>>): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/provider-types', (ctx) => {
    ctx.body = kinds();
  });

  router.post('/providers', async (ctx) => {
    const user = requireUser(ctx.state.caller, WHAT);
    ctx.status = 201;
    ctx.body = await providers.create(user, ctx.request.body);
  });

  router.get('/providers', async (ctx) => {
    const user = requireUser(ctx.state.caller, WHAT);
    const q = ListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await providers.list(user, { page: q.data.page, perPage: q.data.per_page, type: q.data.type });
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.data.page, q.data.per_page);
  });

  router.get('/providers/:id', async (ctx) => {
    ctx.body = await providers.get(requireUser(ctx.state.caller, WHAT), ctx.params.id!);
  });

  router.put('/providers/:id', async (ctx) => {
    ctx.body = await providers.update(requireUser(ctx.state.caller, WHAT), ctx.params.id!, ctx.request.body);
  });

  router.delete('/providers/:id', async (ctx) => {
    await providers.delete(requireUser(ctx.state.caller, WHAT), ctx.params.id!);
    ctx.status = 204;
  });

  return router;
}
