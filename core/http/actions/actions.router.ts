import Router from '@koa/router';
import { z } from 'zod';
import { ActionTypeView } from '../../actions/action-types.schema.js';
import { mailActionErrors, type ErrorMailer } from '../../actions/error-mail.js';
import type { ChainResult } from '@capture/sdk/runner';
import type { ActionRuntime } from '../../actions/runtime.js';
import { newRequestRecord } from '../../capture/pipeline.js';
import { NotFound, ValidationError, fromZod } from '../../errors.js';
import type { RequestRecord, TokenRecord } from '../../store/types.js';
import { ActionView } from '../../workflows/actions.schema.js';
import { exportYaml, toYaml, TokenActionsDocumentSchema, type Step } from '../../workflows/document.js';
import { parseDocument } from '../../workflows/kernel.js';
import { ActionBody } from '../../workflows/service.js';
import { listOf, mountRoutes, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { loadToken, publicBaseUrl } from '../token-access.js';
import { ExecuteQuery, TestActionQuery, TestRunResult, WorkflowFormatQuery, WorkflowTestBody } from './actions.schema.js';

/** The temporary action of a test run that names no existing one (as the reference API does). */
export const TEST_ACTION_ID = '00000000-0000-4000-0000-000000000000';

interface ActionsDeps {
  services: HttpServices;
  runtime: ActionRuntime;
  /** The mail module's mailer, when it runs (it may start after the actions module). */
  mailer: () => ErrorMailer | undefined;
}

const route = routeFor<ActionsDeps>();

/** A request to run actions on when none is given: the defaults the reference uses. */
function sampleRecord(token: TokenRecord, now: number): RequestRecord {
  return newRequestRecord({ token_id: token.uuid, type: 'web', ip: '127.0.0.1', hostname: 'localhost', method: 'POST', url: `/${token.uuid}`, sorting: now * 1000 }, now);
}

async function testResult(
  runtime: ActionRuntime,
  token: TokenRecord,
  record: RequestRecord,
  steps: Step[],
  opts: { dryRun?: boolean; then?: (r: ChainResult) => Promise<void> } = {},
): Promise<z.infer<typeof TestRunResult>> {
  const start = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
  const r = await runtime.run(token, record, steps, start, { dryRun: opts.dryRun });
  await opts.then?.(r);
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

async function requestFor({ store, clock }: HttpServices, token: TokenRecord, id: string | undefined): Promise<RequestRecord> {
  if (!id) return sampleRecord(token, clock.now());
  const r = await store.requests.get(token.uuid, id);
  if (!r) throw new NotFound('Request not found');
  return r;
}

/**
 * The Custom Actions API (api/actions.md). Routes with a body load the token before reading it
 * (bodyParsedByService): an unknown or closed token is a 404/401 whatever the body, as before.
 */
export const actionRoutes = [
  route({
    method: 'get',
    path: '/action-types',
    summary: 'Action types with the JSON Schemas of their parameters',
    auth: 'public',
    response: { status: 200, schema: listOf(ActionTypeView) },
    handler: async (_ctx, { runtime: { registry } }) => {
      // The parameter schemas come from the plugins' code (deferred loading: a flag check once all are in).
      if (registry.deferred) await registry.ready();
      return { data: registry.list() };
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/actions',
    summary: "List the token's Custom Actions",
    auth: 'token',
    response: { status: 200, schema: listOf(ActionView) },
    handler: async (ctx, { services, runtime }) => ({ data: await runtime.workflows.list(await loadToken(ctx, services, ctx.params.token_id!)) }),
  }),
  route({
    method: 'post',
    path: '/token/{token_id}/actions',
    summary: 'Add a Custom Action',
    auth: 'token',
    body: ActionBody,
    bodyParsedByService: true,
    response: { status: 200, schema: ActionView },
    handler: async (ctx, { services, runtime }) => runtime.workflows.create(await loadToken(ctx, services, ctx.params.token_id!), ctx.request.body),
  }),
  route({
    method: 'put',
    path: '/token/{token_id}/actions/{action_id}',
    summary: 'Update a Custom Action',
    auth: 'token',
    body: ActionBody,
    bodyParsedByService: true,
    response: { status: 200, schema: ActionView },
    handler: async (ctx, { services, runtime }) => runtime.workflows.update(await loadToken(ctx, services, ctx.params.token_id!), ctx.params.action_id!, ctx.request.body),
  }),
  route({
    method: 'delete',
    path: '/token/{token_id}/actions/{action_id}',
    summary: 'Delete a Custom Action',
    auth: 'token',
    response: { status: 204 },
    handler: async (ctx, { services, runtime }) => {
      await runtime.workflows.remove(await loadToken(ctx, services, ctx.params.token_id!), ctx.params.action_id!);
    },
  }),
  route({
    method: 'get',
    path: '/token/{token_id}/workflow',
    summary: 'The action chain as a workflow document: YAML, or JSON with `format=json` or `Accept: application/json`',
    auth: 'token',
    query: WorkflowFormatQuery,
    response: { status: 200, schema: TokenActionsDocumentSchema, type: 'application/yaml' },
    handler: async (ctx, { services, runtime: { workflows } }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const doc = await workflows.document(token);
      const format = ctx.input.query.format;
      if (format === 'json' || (format !== 'yaml' && ctx.accepts('application/yaml', 'application/json') === 'application/json')) return doc;
      ctx.type = 'application/yaml';
      ctx.body = exportYaml(doc, await workflows.secretCount(token));
    },
  }),
  route({
    method: 'put',
    path: '/token/{token_id}/workflow',
    summary: 'Replace the action chain with a workflow document (YAML or JSON); answers it in the same form',
    auth: 'token',
    body: TokenActionsDocumentSchema,
    // A YAML text, or JSON: parsed and checked by the workflow kernel after the token is loaded.
    bodyParsedByService: true,
    response: { status: 200, schema: TokenActionsDocumentSchema, type: 'application/yaml' },
    handler: async (ctx, { services, runtime: { workflows } }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const raw = ctx.request.body;
      const doc = await workflows.apply(token, typeof raw === 'string' ? parseDocument(raw) : raw);
      if (ctx.is('application/json')) return doc;
      ctx.type = 'application/yaml';
      ctx.body = toYaml(doc);
    },
  }),
  // A test of the editor's document up to one step: nothing is stored (no request, no global variable).
  route({
    method: 'post',
    path: '/token/{token_id}/workflow/test',
    summary: 'Run a workflow document (default the stored one) up to step `until` on a stored request, storing nothing: output, errors, variables after each step, the response',
    auth: 'token',
    body: WorkflowTestBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TestRunResult },
    handler: async (ctx, { services, runtime }) => {
      const { workflows } = runtime;
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const body = WorkflowTestBody.safeParse(ctx.request.body ?? {});
      if (!body.success) throw fromZod(body.error);
      const { document, until, request_id } = body.data;
      const steps = document ? await workflows.trial(token, document, until) : (await workflows.steps(token)).slice(0, until === undefined ? undefined : until + 1);
      const record = request_id ? await requestFor(services, token, request_id) : ((await services.store.requests.latest(token.uuid)) ?? sampleRecord(token, services.clock.now()));
      return testResult(runtime, token, record, steps, { dryRun: true });
    },
  }),
  route({
    method: 'post',
    path: '/token/{token_id}/test-action',
    summary: "Run a temporary action on a stored request (or a sample): with `action_id`, in that action's place in the chain",
    auth: 'token',
    query: TestActionQuery,
    body: ActionBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TestRunResult },
    handler: async (ctx, { services, runtime }) => {
      const { workflows } = runtime;
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const body = ActionBody.safeParse(ctx.request.body ?? {});
      if (!body.success) throw new ValidationError(body.error.issues[0]?.message ?? 'Invalid action', { type: ['is required'] });
      const { action_id: actionId, request_id } = ctx.input.query;
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
      return testResult(runtime, token, await requestFor(services, token, request_id), chain);
    },
  }),
  route({
    method: 'post',
    path: '/token/{token_id}/request/{request_id}/execute',
    summary: "Run the token's actions on a stored request; its output and errors replace the request's (`error_notifications`: e-mail the owner about errors)",
    auth: 'token',
    query: ExecuteQuery,
    response: { status: 200, schema: TestRunResult },
    handler: async (ctx, { services, runtime, mailer }) => {
      const token = await loadToken(ctx, services, ctx.params.token_id!);
      const record = await requestFor(services, token, ctx.params.request_id!);
      return testResult(runtime, token, record, await runtime.workflows.steps(token), {
        then: async (r) => {
          await services.store.requests.update(token.uuid, record.uuid, { custom_action_output: r.output, custom_action_errors: r.errors, updated_at: services.clock.now() });
          if (!ctx.input.query.error_notifications || r.errors.length === 0) return;
          const deps = { store: services.store, mailer: mailer(), relayConfigured: !!services.config.SMTP_RELAY_URL, now: services.clock.now(), baseUrl: publicBaseUrl(ctx, services) };
          // A relay that refuses is logged; the run's answer does not depend on the e-mail.
          await mailActionErrors(deps, token, record.uuid, r.errors).catch((err: unknown) => services.logger.warn('action error e-mail failed', { token: token.uuid, err }));
        },
      });
    },
  }),
];

export function actionsRouter(services: HttpServices, runtime: ActionRuntime, mailer: () => ErrorMailer | undefined = () => undefined): Router<AppState> {
  return mountRoutes(new Router<AppState>(), actionRoutes, { services, runtime, mailer });
}
