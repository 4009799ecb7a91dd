import Router from '@koa/router';
import { z } from 'zod';
import { requireUser } from '../../auth/access.js';
import { fromZod } from '../../errors.js';
import type { TemplateService } from '../../templates/service.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';

const ListQuery = z.object({
  per_page: z.coerce.number().int().min(1).max(100).default(50),
  page: z.coerce.number().int().min(1).default(1),
});
const WHAT = 'Templates';

/** The Templates API (api/templates.md). */
export function templatesRouter(services: HttpServices, templates: TemplateService): Router<AppState> {
  const router = new Router<AppState>();
  const id = (raw: string | undefined) => (/^\d{1,15}$/.test(raw ?? '') ? Number(raw) : NaN);

  router.post('/templates', async (ctx) => {
    ctx.status = 201;
    ctx.body = await templates.create(requireUser(ctx.state.caller, WHAT), ctx.request.body);
  });

  router.get('/templates', async (ctx) => {
    const user = requireUser(ctx.state.caller, WHAT);
    const q = ListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await templates.list(user, q.data.page, q.data.per_page);
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.data.page, q.data.per_page);
  });

  router.get('/templates/:id', async (ctx) => {
    ctx.body = await templates.get(requireUser(ctx.state.caller, WHAT), id(ctx.params.id));
  });

  router.put('/templates/:id', async (ctx) => {
    ctx.body = await templates.update(requireUser(ctx.state.caller, WHAT), id(ctx.params.id), ctx.request.body);
  });

  router.delete('/templates/:id', async (ctx) => {
    await templates.delete(requireUser(ctx.state.caller, WHAT), id(ctx.params.id));
    ctx.status = 204;
  });

  return router;
}
