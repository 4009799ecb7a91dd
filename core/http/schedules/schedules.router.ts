// The Schedules API (seed: Schedules endpoints): a view onto the schedules' workflow documents.
// Every endpoint needs a user API key; a user sees only their own schedules (another user's is a 404).
import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { requireUser } from '../../auth/access.js';
import { NotFound, TooManyRequests, ValidationError, fromZod } from '../../errors.js';
import { documentFromFields, normaliseScheduleDocument, toApiFieldErrors, toYaml, type ScheduleDocument } from '../../scheduler/document.js';
import { parseDocuments } from '../../workflows/kernel.js';
import { DEFAULT_SETTINGS } from '../../scheduler/notify.js';
import type { Scheduler } from '../../scheduler/scheduler.js';
import type { ScheduleService } from '../../scheduler/service.js';
import { logView, scheduleView } from '../../scheduler/views.js';
import type { ScheduleRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { DocumentQuery, NotificationSettingsBody, ScheduleBody, ScheduleListQuery, ScheduleLogsQuery } from './schedules.schema.js';

/** Seed limit of the logs endpoint. */
export const LOGS_PER_MINUTE = 60;

export interface SchedulesRouterDeps {
  service: ScheduleService;
  scheduler: Pick<Scheduler, 'runNow'>;
}

const userId = (ctx: ParameterizedContext<AppState>) => requireUser(ctx.state.caller, 'Schedules');

function documentFromBody(body: unknown, owner?: number): ScheduleDocument {
  const parsed = ScheduleBody.safeParse(body ?? {});
  if (!parsed.success) throw fromZod(parsed.error);
  const b = parsed.data;
  try {
    return documentFromFields(
      {
        name: b.name,
        interval: b.interval,
        cron: b.cron ?? null,
        request_url: b.request_url,
        request_method: b.request_method,
        request_body: b.request_body ?? '',
        request_headers: b.request_headers ?? '',
        timeout: b.timeout,
        require_body: b.require_body ?? null,
        require_status_min: b.require_status_min ?? null,
        require_status_max: b.require_status_max ?? null,
      },
      owner,
    );
  } catch (e) {
    if (e instanceof ValidationError) throw toApiFieldErrors(e);
    throw e;
  }
}

export function schedulesRouter(services: HttpServices, deps: SchedulesRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock } = services;
  const { service, scheduler } = deps;

  async function load(ctx: ParameterizedContext<AppState>): Promise<ScheduleRecord> {
    const owner = userId(ctx);
    const id = Number(ctx.params.schedule);
    const s = Number.isSafeInteger(id) && id > 0 ? await store.schedules.get(id) : null;
    if (!s || s.user_id !== owner) throw new NotFound('Schedule not found');
    return s;
  }

  router.post('/schedules', async (ctx) => {
    const owner = userId(ctx);
    const doc = documentFromBody(ctx.request.body);
    ctx.body = scheduleView(await service.create(owner, doc));
  });

  router.get('/schedules', async (ctx) => {
    const owner = userId(ctx);
    const q = ScheduleListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await store.schedules.list(owner, q.data.page, q.data.per_page);
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(scheduleView), page.total, q.data.page, q.data.per_page);
  });

  // Where error notifications go (Control Panel -> Settings on webhook.site).
  router.get('/schedules/notifications', async (ctx) => {
    const owner = userId(ctx);
    const s = await store.schedules.getNotificationSettings(owner);
    ctx.body = { ...DEFAULT_SETTINGS, ...s, user_id: owner, updated_at: formatTimestamp(s?.updated_at ?? null) };
  });

  router.put('/schedules/notifications', async (ctx) => {
    const owner = userId(ctx);
    const body = NotificationSettingsBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const current = (await store.schedules.getNotificationSettings(owner)) ?? { ...DEFAULT_SETTINGS, user_id: owner, updated_at: 0 };
    const next = {
      user_id: owner,
      email: body.data.email === undefined ? current.email : body.data.email,
      email_enabled: body.data.email_enabled ?? current.email_enabled,
      webhook_url: body.data.webhook_url === undefined ? current.webhook_url : body.data.webhook_url,
      updated_at: clock.now(),
    };
    const saved = await store.schedules.putNotificationSettings(next);
    ctx.body = { ...saved, updated_at: formatTimestamp(saved.updated_at) };
  });

  router.get('/schedules/:schedule', async (ctx) => {
    ctx.body = scheduleView(await load(ctx));
  });

  router.put('/schedules/:schedule', async (ctx) => {
    const s = await load(ctx);
    const doc = documentFromBody(ctx.request.body);
    ctx.body = scheduleView(await service.replace(s, doc));
  });

  router.delete('/schedules/:schedule', async (ctx) => {
    const s = await load(ctx);
    await service.delete(s);
    ctx.status = 204;
  });

  router.post('/schedules/:schedule/run-now', async (ctx) => {
    const s = await load(ctx);
    ctx.body = logView(await scheduler.runNow(s));
  });

  router.get('/schedules/:schedule/logs', async (ctx) => {
    const s = await load(ctx);
    const now = clock.now();
    const window = now - (now % 60_000);
    const count = await store.counters.hit(`schedule-logs:user:${s.user_id}`, window, 120_000);
    if (count > LOGS_PER_MINUTE) {
      throw new TooManyRequests(`Too many schedule log requests: at most ${LOGS_PER_MINUTE} per minute`, (window + 60_000 - now) / 1000);
    }
    const q = ScheduleLogsQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const page = await store.schedules.listLogs(s.id, { sorting: q.data.sorting, page: q.data.page, perPage: q.data.per_page });
    ctx.body = pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items.map(logView), page.total, q.data.page, q.data.per_page);
  });

  // The schedule as a workflow document (YAML by default), to keep in git and apply from workflows/.
  router.get('/schedules/:schedule/document', async (ctx) => {
    const s = await load(ctx);
    const q = DocumentQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const doc = await service.exportDocument(s);
    if (q.data.format === 'json') {
      ctx.body = doc;
    } else {
      ctx.type = 'application/yaml';
      ctx.body = toYaml(doc);
    }
  });

  // Replaces the schedule with a document (YAML or JSON); its metadata.owner, if any, is ignored.
  router.put('/schedules/:schedule/document', async (ctx) => {
    const s = await load(ctx);
    const input = typeof ctx.request.body === 'string' ? parseDocuments(ctx.request.body) : [ctx.request.body];
    if (input.length !== 1) throw new ValidationError('document: send exactly one document', { document: ['must be exactly one document'] });
    const doc = normaliseScheduleDocument(input[0]);
    ctx.body = scheduleView(await service.replace(s, doc));
  });

  return router;
}
