import Router from '@koa/router';
import { z } from 'zod';
import { requireUser } from '../../auth/access.js';
import type { DatabaseService } from '../../databases/service.js';
import { fromZod } from '../../errors.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { pageNumber, perPage } from '../paging.js';

export const DatabaseListQuery = z.object({
  per_page: perPage(15),
  page: pageNumber,
});

const WHAT = 'Databases';

/** The Databases API: a user's hosted SQL databases and their query endpoint. */
export function databasesRouter(services: HttpServices, databases: DatabaseService): Router<AppState> {
  const router = new Router<AppState>();

  router.post('/databases', async (ctx) => {
    const user = requireUser(ctx.state.caller, WHAT);
    ctx.status = 201;
    ctx.body = await databases.create(user, ctx.request.body);
  });

  router.get('/databases', async (ctx) => {
    const user = requireUser(ctx.state.caller, WHAT);
    const q = DatabaseListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await databases.list(user, { page: q.data.page, perPage: q.data.per_page });
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.data.page, q.data.per_page);
  });

  router.get('/databases/:id', async (ctx) => {
    ctx.body = await databases.get(requireUser(ctx.state.caller, WHAT), ctx.params.id!);
  });

  router.put('/databases/:id', async (ctx) => {
    ctx.body = await databases.rename(requireUser(ctx.state.caller, WHAT), ctx.params.id!, ctx.request.body);
  });

  router.delete('/databases/:id', async (ctx) => {
    await databases.delete(requireUser(ctx.state.caller, WHAT), ctx.params.id!);
    ctx.status = 204;
  });

  router.post('/databases/:id/query', async (ctx) => {
    ctx.body = await databases.queryApi(requireUser(ctx.state.caller, WHAT), ctx.params.id!, ctx.request.body);
  });

  return router;
}
