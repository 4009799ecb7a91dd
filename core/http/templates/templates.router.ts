import Router from '@koa/router';
import { z } from 'zod';
import { requireUser } from '../../auth/access.js';
import { fromZod } from '../../errors.js';
import type { TokenRecord } from '../../store/types.js';
import { TemplateCreateBody, type TemplateService } from '../../templates/service.js';
import type { Step } from '../../workflows/document.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, pageEnvelope, publicBaseUrl } from '../token-access.js';
import { pageNumber, perPage } from '../paging.js';

const ListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
});
const WHAT = 'Templates';
/** A template saved from a token's chain names the token, so its secret parameters come along. */
const FromToken = TemplateCreateBody.pick({ from_token: true });

/** The Templates API (api/templates.md). */
export function templatesRouter(services: HttpServices, templates: TemplateService, tokenSteps: (token: TokenRecord) => Promise<Step[]>): Router<AppState> {
  const router = new Router<AppState>();
  const id = (raw: string | undefined) => (/^\d{1,15}$/.test(raw ?? '') ? Number(raw) : NaN);

  router.post('/templates', async (ctx) => {
    const user = requireUser(ctx.state.caller, WHAT);
    const from = FromToken.safeParse(ctx.request.body ?? {});
    if (!from.success) throw fromZod(from.error);
    // The token's actions API shows secrets as the marker; with `from_token` (a token the caller may
    // open) a marker in an action of the same uuid stands for that action's stored secret.
    const previous = from.data.from_token ? await tokenSteps(await loadToken(ctx, services, from.data.from_token)) : [];
    ctx.status = 201;
    ctx.body = await templates.create(user, ctx.request.body, previous);
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
