// The Schedules API (seed: Schedules endpoints): a view onto the schedules' workflow documents.
// Every endpoint needs a user API key; a user sees their team's schedules (another team's is a 404;
// one outside the groups of a user limited to groups a 403: core/scheduler/access.ts).
import Router from '@koa/router';
import { listedGroups, type Caller } from '../../auth/access.js';
import { ValidationError } from '../../errors.js';
import { authorizeSchedule, checkScheduleGroup, teamMemberIds } from '../../scheduler/access.js';
import { documentFromFields, normaliseScheduleDocument, ScheduleDocumentSchema, toApiFieldErrors, toYaml, type ScheduleDocument } from '../../scheduler/document.js';
import { DEFAULT_SETTINGS } from '../../scheduler/notify.js';
import { NotificationSettingsBody, NotificationSettingsView, ScheduleBody, ScheduleLogView, ScheduleView, type ScheduleBodyInput } from '../../scheduler/schedule.schema.js';
import type { Scheduler } from '../../scheduler/scheduler.js';
import type { ScheduleService } from '../../scheduler/service.js';
import { logView, scheduleView } from '../../scheduler/views.js';
import type { ScheduleRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import { parseDocuments } from '../../workflows/kernel.js';
import { limitReadsPerMinute } from '../read-limit.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { DocumentQuery, ScheduleListQuery, ScheduleLogsQuery } from './schedules.schema.js';

/** Seed limit of the logs endpoint. */
export const LOGS_PER_MINUTE = 60;

export interface SchedulesRouterDeps {
  service: ScheduleService;
  scheduler: Pick<Scheduler, 'runNow'>;
}
type Deps = SchedulesRouterDeps & { services: HttpServices };

const route = routeFor<Deps>();
const auth = { user: 'Schedules' };

function documentFromBody(b: ScheduleBodyInput, owner?: number): ScheduleDocument {
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
        tls_expiry_alert_days: b.tls_expiry_alert_days ?? null,
      },
      owner,
    );
  } catch (e) {
    if (e instanceof ValidationError) throw toApiFieldErrors(e);
    throw e;
  }
}

type UserCaller = Caller & { kind: 'user' };

/** The schedule of that id if the caller may open it (core/scheduler/access.ts). */
async function load({ services }: Deps, caller: Caller, raw: string | undefined): Promise<ScheduleRecord> {
  const id = Number(raw);
  const s = Number.isSafeInteger(id) && id > 0 ? await services.store.schedules.get(id) : null;
  return authorizeSchedule(services.store, caller as UserCaller, s);
}

/** The group a change puts the schedule in: checked when it names another one; undefined keeps it. */
async function groupOfChange({ services }: Deps, caller: Caller, current: ScheduleRecord | null, groupId: number | null | undefined): Promise<number | null | undefined> {
  if (current && (groupId === undefined || groupId === current.group_id)) return undefined;
  const next = groupId ?? null;
  await checkScheduleGroup(services.store, caller, next);
  return next;
}

/** The Schedules API (api/schedules.md). */
export const scheduleRoutes = [
  route({
    method: 'post',
    path: '/schedules',
    summary: 'Create a schedule',
    auth,
    body: ScheduleBody,
    response: { status: 200, schema: ScheduleView },
    handler: async (ctx, deps) => {
      const doc = documentFromBody(ctx.input.body);
      const groupId = await groupOfChange(deps, ctx.state.caller, null, ctx.input.body.group_id);
      return scheduleView(await deps.service.create(ctx.input.userId, doc, null, groupId ?? null));
    },
  }),
  route({
    method: 'get',
    path: '/schedules',
    summary: "List the team's schedules (only those in their groups for a user limited to groups)",
    auth,
    query: ScheduleListQuery,
    response: { status: 200, schema: pageOf(ScheduleView) },
    handler: async (ctx, { services }) => {
      const { page, per_page, group_id } = ctx.input.query;
      const caller = ctx.state.caller as UserCaller;
      const found = await services.store.schedules.list({ userIds: await teamMemberIds(services.store, caller.user.team_id), groupIds: listedGroups(caller, group_id) }, page, per_page);
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), found.items.map(scheduleView), found.total, page, per_page);
    },
  }),
  // Where error notifications go (Control Panel -> Settings on webhook.site).
  route({
    method: 'get',
    path: '/schedules/notifications',
    summary: 'Where error notifications go',
    auth,
    response: { status: 200, schema: NotificationSettingsView },
    handler: async (ctx, { services }) => {
      const owner = ctx.input.userId;
      const s = await services.store.schedules.getNotificationSettings(owner);
      return { ...DEFAULT_SETTINGS, ...s, user_id: owner, updated_at: formatTimestamp(s?.updated_at ?? null) };
    },
  }),
  route({
    method: 'put',
    path: '/schedules/notifications',
    summary: 'Set where error notifications go',
    auth,
    body: NotificationSettingsBody,
    response: { status: 200, schema: NotificationSettingsView },
    handler: async (ctx, { services: { store, clock } }) => {
      const owner = ctx.input.userId;
      const body = ctx.input.body;
      const current = (await store.schedules.getNotificationSettings(owner)) ?? { ...DEFAULT_SETTINGS, user_id: owner, updated_at: 0 };
      const saved = await store.schedules.putNotificationSettings({
        user_id: owner,
        email: body.email === undefined ? current.email : body.email,
        email_enabled: body.email_enabled ?? current.email_enabled,
        webhook_url: body.webhook_url === undefined ? current.webhook_url : body.webhook_url,
        updated_at: clock.now(),
      });
      return { ...saved, updated_at: formatTimestamp(saved.updated_at) };
    },
  }),
  route({
    method: 'get',
    path: '/schedules/{schedule_id}',
    summary: 'Get a schedule',
    auth,
    response: { status: 200, schema: ScheduleView },
    handler: async (ctx, deps) => scheduleView(await load(deps, ctx.state.caller, ctx.params.schedule_id)),
  }),
  route({
    method: 'put',
    path: '/schedules/{schedule_id}',
    summary: 'Update a schedule',
    auth,
    body: ScheduleBody,
    response: { status: 200, schema: ScheduleView },
    handler: async (ctx, deps) => {
      const s = await load(deps, ctx.state.caller, ctx.params.schedule_id);
      const doc = documentFromBody(ctx.input.body);
      return scheduleView(await deps.service.replace(s, doc, await groupOfChange(deps, ctx.state.caller, s, ctx.input.body.group_id)));
    },
  }),
  route({
    method: 'delete',
    path: '/schedules/{schedule_id}',
    summary: 'Delete a schedule',
    auth,
    response: { status: 204 },
    handler: async (ctx, deps) => {
      await deps.service.delete(await load(deps, ctx.state.caller, ctx.params.schedule_id));
    },
  }),
  route({
    method: 'post',
    path: '/schedules/{schedule_id}/run-now',
    summary: 'Run the schedule now; answers its log entry',
    auth,
    response: { status: 200, schema: ScheduleLogView },
    handler: async (ctx, deps) => logView(await deps.scheduler.runNow(await load(deps, ctx.state.caller, ctx.params.schedule_id))),
  }),
  route({
    method: 'get',
    path: '/schedules/{schedule_id}/logs',
    summary: `Log entries of the schedule (${LOGS_PER_MINUTE} a minute)`,
    auth,
    query: ScheduleLogsQuery,
    response: { status: 200, schema: pageOf(ScheduleLogView) },
    handler: async (ctx, deps) => {
      const { store, clock } = deps.services;
      const s = await load(deps, ctx.state.caller, ctx.params.schedule_id);
      await limitReadsPerMinute(store, `schedule-logs:user:${ctx.input.userId}`, clock.now(), LOGS_PER_MINUTE, `Too many schedule log requests: at most ${LOGS_PER_MINUTE} per minute`);
      const { sorting, page, per_page } = ctx.input.query;
      const found = await store.schedules.listLogs(s.id, { sorting, page, perPage: per_page });
      return pageEnvelope(ctx, publicBaseUrl(ctx, deps.services), found.items.map(logView), found.total, page, per_page);
    },
  }),
  // The schedule as a workflow document (YAML by default), to keep in git and apply from workflows/.
  route({
    method: 'get',
    path: '/schedules/{schedule_id}/document',
    summary: 'The schedule as a workflow document: YAML, or JSON with `format=json`',
    auth,
    query: DocumentQuery,
    response: { status: 200, schema: ScheduleDocumentSchema, type: 'application/yaml' },
    handler: async (ctx, deps) => {
      const doc = await deps.service.exportDocument(await load(deps, ctx.state.caller, ctx.params.schedule_id));
      if (ctx.input.query.format === 'json') return doc;
      ctx.type = 'application/yaml';
      ctx.body = toYaml(doc);
    },
  }),
  // Replaces the schedule with a document (YAML or JSON); its metadata.owner, if any, is ignored.
  route({
    method: 'put',
    path: '/schedules/{schedule_id}/document',
    summary: 'Replace the schedule from a workflow document (YAML or JSON); answers the schedule',
    auth,
    body: ScheduleDocumentSchema,
    // A YAML text, or JSON: parsed (one document) and checked by the workflow kernel.
    bodyParsedByService: true,
    response: { status: 200, schema: ScheduleView },
    handler: async (ctx, deps) => {
      const s = await load(deps, ctx.state.caller, ctx.params.schedule_id);
      const input = typeof ctx.request.body === 'string' ? parseDocuments(ctx.request.body) : [ctx.request.body];
      if (input.length !== 1) throw new ValidationError('document: send exactly one document', { document: ['must be exactly one document'] });
      const doc = normaliseScheduleDocument(input[0]);
      return scheduleView(await deps.service.replace(s, doc, await groupOfChange(deps, ctx.state.caller, s, doc.metadata.group_id)));
    },
  }),
];

export function schedulesRouter(services: HttpServices, deps: SchedulesRouterDeps): Router<AppState> {
  return mountRoutes(new Router<AppState>(), scheduleRoutes, { ...deps, services });
}
