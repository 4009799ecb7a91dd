import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { ActionRuntime } from '../../actions/runtime.js';
import { newRequestRecord } from '../../capture/pipeline.js';
import { NotFound, ValidationError, fromZod } from '../../errors.js';
import type { RequestRecord, TokenRecord } from '../../store/types.js';
import { exportYaml, toYaml, type Step } from '../../workflows/document.js';
import { parseDocument } from '../../workflows/kernel.js';
import { ActionBody } from '../../workflows/service.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken } from '../token-access.js';
import { WorkflowTestBody } from './actions.schema.js';

/** The temporary action of a test run that names no existing one (as the reference API does). */
export const TEST_ACTION_ID = '00000000-0000-4000-0000-000000000000';

/** A request to run actions on when none is given: the defaults the reference uses. */
function sampleRecord(token: TokenRecord, now: number): RequestRecord {
  return newRequestRecord({ token_id: token.uuid, type: 'web', ip: '127.0.0.1', hostname: 'localhost', method: 'POST', url: `/${token.uuid}`, sorting: now * 1000 }, now);
}

export function actionsRouter(services: HttpServices, runtime: ActionRuntime): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock } = services;
  const { workflows, registry } = runtime;

  async function testResult(token: TokenRecord, record: RequestRecord, steps: Step[], opts: { dryRun?: boolean } = {}) {
    const start = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
    const r = await runtime.run(token, record, steps, start, { dryRun: opts.dryRun });
    const output: Record<string, string[]> = {};
    for (const l of r.lines) (output[l.action] ??= []).push(l.text);
    // What a run asks to run later (WebhookScript's delay()) is only queued for a capture.
    for (const l of r.later) (output[l.from.uuid] ??= []).push(`Delayed: ${l.type} would run in ${l.delay} s (not queued: this run is not a capture)`);
    return {
      success: r.errors.length === 0,
      result: {
        output,
        errors: r.errors,
        response: r.response
          ? { content: Buffer.isBuffer(r.response.content) ? r.response.content.toString('utf8') : r.response.content, status: r.response.status, headers: { 'Content-Type': r.response.contentType, ...r.response.headers } }
          : { content: null, status: null, headers: null },
        dont_save: r.dontSave,
        stopped: r.stopped,
        variables: r.variables,
        ...(r.trace ? { steps: r.trace } : {}),
      },
    };
  }

  async function requestFor(ctx: ParameterizedContext<AppState>, token: TokenRecord, id: string | undefined): Promise<RequestRecord> {
    if (!id) return sampleRecord(token, clock.now());
    const r = await store.requests.get(token.uuid, id);
    if (!r) throw new NotFound('Request not found');
    return r;
  }

  router.get('/action-types', async (ctx) => {
    // The parameter schemas come from the plugins' code (deferred loading: a flag check once all are in).
    if (registry.deferred) await registry.ready();
    ctx.body = { data: registry.list() };
  });

  router.get('/token/:token/actions', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = { data: await workflows.list(token) };
  });

  router.post('/token/:token/actions', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = await workflows.create(token, ctx.request.body);
  });

  router.put('/token/:token/actions/:action', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    ctx.body = await workflows.update(token, ctx.params.action!, ctx.request.body);
  });

  router.delete('/token/:token/actions/:action', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    await workflows.remove(token, ctx.params.action!);
    ctx.status = 204;
  });

  router.get('/token/:token/workflow', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const doc = await workflows.document(token);
    if (ctx.query.format === 'json' || (ctx.accepts('application/yaml', 'application/json') === 'application/json' && ctx.query.format !== 'yaml')) {
      ctx.body = doc;
    } else {
      ctx.type = 'application/yaml';
      ctx.body = exportYaml(doc, await workflows.secretCount(token));
    }
  });

  router.put('/token/:token/workflow', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const raw = ctx.request.body;
    const input = typeof raw === 'string' ? parseDocument(raw) : raw;
    const doc = await workflows.apply(token, input);
    if (ctx.is('application/json')) ctx.body = doc;
    else {
      ctx.type = 'application/yaml';
      ctx.body = toYaml(doc);
    }
  });

  // A test of the editor's document up to one step: nothing is stored (no request, no global variable).
  router.post('/token/:token/workflow/test', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const body = WorkflowTestBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const { document, until, request_id } = body.data;
    const steps = document ? await workflows.trial(token, document, until) : (await workflows.steps(token)).slice(0, until === undefined ? undefined : until + 1);
    const record = request_id ? await requestFor(ctx, token, request_id) : ((await store.requests.latest(token.uuid)) ?? sampleRecord(token, clock.now()));
    ctx.body = await testResult(token, record, steps, { dryRun: true });
  });

  router.post('/token/:token/test-action', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const body = ActionBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw new ValidationError(body.error.issues[0]?.message ?? 'Invalid action', { type: ['is required'] });
    const actionId = typeof ctx.query.action_id === 'string' ? ctx.query.action_id : undefined;
    const params = await workflows.trialParameters(token, actionId, body.data.type, body.data.parameters);
    const steps = await workflows.steps(token);
    const tested: Step = { id: actionId ?? TEST_ACTION_ID, type: body.data.type, parameters: params, disabled: false };
    let chain: Step[];
    if (actionId) {
      if (!steps.some((s) => s.id === actionId)) throw new NotFound('Action not found');
      chain = steps.map((s) => (s.id === actionId ? { ...s, ...tested } : s));
    } else {
      chain = [...steps.filter((s) => (s.delay ?? 0) === 0 || !s.queue), tested];
    }
    const record = await requestFor(ctx, token, typeof ctx.query.request_id === 'string' ? ctx.query.request_id : undefined);
    ctx.body = await testResult(token, record, chain);
  });

  router.post('/token/:token/request/:request/execute', async (ctx) => {
    const token = await loadToken(ctx, services, ctx.params.token!);
    const record = await requestFor(ctx, token, ctx.params.request!);
    ctx.body = await testResult(token, record, await workflows.steps(token));
  });

  return router;
}
