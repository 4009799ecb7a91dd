// The action runtime as a service module: runs a token's chain on every capture (and queued and
// delayed actions as scheduler jobs), with each plugin's services resolved from its container, and
// serves the actions API. Plugins, workflows, templates, providers, databases and global variables
// are modules of their own (core/modules.ts); this one starts after them.
import { instanceCachingFactory } from '@capture/sdk/container';
import type { CapturedRequest, DependencyContainer, HttpClient, HttpRequest, RunOwner, Services } from '@capture/sdk';
import { requestView } from '../capture/request-view.js';
import { actionsRouter } from '../http/actions/actions.router.js';
import { queueProfilesRouter } from '../http/queue-profiles/queue-profiles.router.js';
import type { ServiceModule } from '../service-module.js';
import type { Step } from '../workflows/document.js';
import type { RequestRecord } from '../store/types.js';
import { deepFreeze } from '../workflows/steps-cache.js';
import { SANDBOX_POOL, createSandboxPool, type SandboxPool } from '../sandbox/index.js';
import { SealError } from '../auth/sealing.js';
import { runOwner, runServices, servicesWith } from './services.js';
import { FailureTracker } from './failures.js';
import { ACTIONS, ACTION_TYPES, DATABASE_SERVICE, ERROR_LOG, GLOBALS, JOBS, MAIL_RELAY, PROVIDER_SERVICE, SECRETS, TEMPLATE_SERVICE, WORKFLOWS } from '../service-keys.js';
import { QueueProfileGate } from './queue-profiles.js';
import { QUEUED_ACTIONS_JOB, defineQueuedActions, queueLater, snapshotOf, splitQueued, type JobQueueLike, type QueuedJobData } from './queued.js';
import { runChain, type ChainAction } from '@capture/sdk/runner';
import type { ParameterSecrets } from './secret-params.js';
import type { ActionRuntime } from './runtime.js';
import { createPluginsModule } from '../plugins/module.js';
import { createGlobalsModule } from '../globals/module.js';
import { createDatabasesModule } from '../databases/module.js';
import { createProvidersModule } from '../providers/module.js';
import { createWorkflowsModule } from '../workflows/module.js';
import { createTemplatesModule } from '../templates/module.js';
import { includesTemplates } from '../templates/service.js';

export type { ActionRuntime, RunOptions } from './runtime.js';

export const INLINE_HTTP_TIMEOUT_MS = 15_000;

/** A step with its secret parameters opened; one that cannot be opened fails when it is reached. */
function openSecrets(secrets: ParameterSecrets, step: Step): Step & { unavailable?: string } {
  try {
    return { ...step, parameters: secrets.open(step.type, step.parameters) };
  } catch (e) {
    if (!(e instanceof SealError)) throw e;
    return { ...step, unavailable: `A secret parameter cannot be used: ${e.message}` };
  }
}

/**
 * A step as the runner takes it (secrets opened), kept for a frozen step: the steps cache shares one
 * frozen step between a token's captures for up to its TTL, so each is opened and copied once, not
 * per run. `order` is its place in the run, so a step seen at another place is made again.
 */
const chainActions = new WeakMap<Step, ChainAction>();

function chainActionOf(secrets: ParameterSecrets, step: Step, order: number): ChainAction {
  const kept = Object.isFrozen(step) ? chainActions.get(step) : undefined;
  if (kept?.order === order) return kept;
  const s = openSecrets(secrets, step);
  const action: ChainAction = { uuid: s.id, type: s.type, order, parameters: s.parameters, disabled: s.disabled, condition: s.condition, condition_action: s.condition_action, unavailable: s.unavailable };
  // Frozen like the step (opened parameters too): every run of the token shares it.
  if (Object.isFrozen(step)) chainActions.set(step, deepFreeze(action));
  return action;
}

/** The chain's actions for frozen (cached) steps, kept as long as those steps are: one list per run saved. */
const chainActionLists = new WeakMap<readonly Step[], ChainAction[]>();

function chainActionsOf(secrets: ParameterSecrets, steps: Step[]): ChainAction[] {
  const kept = Object.isFrozen(steps) ? chainActionLists.get(steps) : undefined;
  if (kept) return kept;
  const actions = steps.map((s, i) => chainActionOf(secrets, s, i + 1));
  // Frozen steps give frozen actions (chainActionOf): the list is shared as they are.
  if (Object.isFrozen(steps) && actions.every((a) => Object.isFrozen(a))) chainActionLists.set(steps, Object.freeze(actions) as ChainAction[]);
  return actions;
}

/** The modules the runtime cannot run without, for a server started with the actions module alone. */
function runtimeDefaults(): ServiceModule[] {
  return [createPluginsModule(), createGlobalsModule(), createDatabasesModule(), createProvidersModule(), createWorkflowsModule(), createTemplatesModule()];
}

/** An HTTP client whose requests get `timeoutMs` unless they set their own. */
function timedClient(http: HttpClient, timeoutMs: number): HttpClient {
  const withTimeout = (req: HttpRequest): HttpRequest => ({ ...req, timeoutMs: req.timeoutMs ?? timeoutMs });
  const timed: HttpClient = { request: (req) => http.request(withTimeout(req)) };
  if (http.session) {
    const session = http.session.bind(http);
    timed.session = () => {
      const s = session();
      return { request: (req) => s.request(withTimeout(req)), close: () => s.close() };
    };
  }
  return timed;
}

/**
 * The `own` part of withHttpTimeout's services: a class, so each run's costs one small object (an
 * object literal with a getter is built the slow way, every run); the client is made when an action
 * first reads it: most chains send no request.
 */
class TimedHttp {
  #timed: HttpClient | undefined;
  constructor(
    private readonly services: Services,
    private readonly timeoutMs: number,
  ) {}
  get http(): HttpClient {
    return (this.#timed ??= timedClient(this.services.http, this.timeoutMs));
  }
}

/** Services with a default timeout on the actions' HTTP requests (15 s inline, the queued budget queued). */
function withHttpTimeout(services: Services, timeoutMs: number): Services {
  return servicesWith(services, new TimedHttp(services, timeoutMs));
}

/** The API's download URL of a capture's uploaded file (GET /token/{token_id}/request/{request_id}/download/{file_id}). */
export function fileLink(baseUrl: string, record: Pick<RequestRecord, 'token_id' | 'uuid'>, fileId: string): string {
  return `${baseUrl}/token/${record.token_id}/request/${record.uuid}/download/${encodeURIComponent(fileId)}`;
}

export function createActionsModule(): ServiceModule {
  return {
    name: 'actions',
    provides: [ACTIONS],
    requires: [ACTION_TYPES, SECRETS, WORKFLOWS, TEMPLATE_SERVICE, GLOBALS, PROVIDER_SERVICE, DATABASE_SERVICE],
    // MAIL_RELAY: the Send Email action's mailer, which plugins resolve as the SDK's MAILER (core/sdk-bridge.ts).
    uses: [JOBS, ERROR_LOG, MAIL_RELAY],
    defaults: runtimeDefaults,
    async start(ctx) {
      const { store, clock, logger, config, container } = ctx;
      const registry = ctx.require(ACTION_TYPES);
      const secrets: ParameterSecrets = ctx.require(SECRETS).parameters;
      const workflows = ctx.require(WORKFLOWS);
      const templates = ctx.require(TEMPLATE_SERVICE);
      // Links into the API (`$request.file.<name>.link$`): BASE_URL, else the address the server listens on.
      let baseUrl = config.baseUrl;
      // One JavaScript sandbox pool per process, started on first use and closed with the module.
      let pool: SandboxPool | undefined;
      const queuedBudgetMs = config.QUEUED_ACTIONS_TIMEOUT_S * 1000;
      const poolOptions = { runTimeoutMs: config.SANDBOX_RUN_TIMEOUT_MS, queuedRunTimeoutMs: queuedBudgetMs, maxConcurrentPerAccount: config.SANDBOX_MAX_CONCURRENT_PER_ACCOUNT, onRun: ctx.metrics.sandboxRun };
      container.register(SANDBOX_POOL, { useFactory: instanceCachingFactory(() => (pool = createSandboxPool(poolOptions))) });
      ctx.metrics.sandboxSource(() => pool?.stats() ?? null);
      const failureStreaks = new FailureTracker(store, workflows, clock, logger, config.ACTION_DISABLE_AFTER_FAILURES);

      /**
       * Each action's services, from its plugin's container, once per container and run. The first
       * container asked for (the server's, for the chain itself) is kept without a Map: a chain of
       * text actions asks for no other.
       */
      const servicesPerPlugin = (owner: RunOwner, timeoutMs: number) => {
        let first: DependencyContainer | undefined;
        let firstServices: Services | undefined;
        let more: Map<DependencyContainer, Services> | undefined;
        return (c: DependencyContainer): Services => {
          if (c === first) return firstServices!;
          let services = more?.get(c);
          if (services) return services;
          services = withHttpTimeout(runServices(c, owner), timeoutMs);
          if (!first) [first, firstServices] = [c, services];
          else (more ??= new Map()).set(c, services);
          return services;
        };
      };

      const runtime: ActionRuntime = {
        registry,
        workflows,
        async run(token, record, chainSteps, start, opts = {}) {
          // Most chains include no template: no call (and no wait) to expand them.
          const expanded = includesTemplates(chainSteps) ? await templates.expand(token.user_id, chainSteps) : chainSteps;
          // Deferred loading: opening secrets and running need each type's plugin (a flag check once all are in).
          if (registry.deferred) await registry.ready(expanded.map((s) => s.type));
          const actions = chainActionsOf(secrets, expanded);
          // The chain's own services (global variables, clock, logger) are the server's; each action gets its plugin's.
          const pluginServices = servicesPerPlugin(runOwner(token), opts.httpTimeoutMs ?? INLINE_HTTP_TIMEOUT_MS);
          const services = pluginServices(container);
          const request = requestView(record) as unknown as CapturedRequest;
          // Uploaded files' bytes, for `$request.file.<name>.content$` and actions that send them on.
          if (record.files.length) {
            request.files = await Promise.all(
              record.files.map(async (f) => ({
                ...f,
                content: opts.files?.get(f.id) ?? (await store.requests.getFile(record.token_id, record.uuid, f.id)) ?? undefined,
                ...(baseUrl ? { link: fileLink(baseUrl, record, f.id) } : {}),
              })),
            );
          }
          // Awaited, not returned: an async function returning a promise takes two more ticks.
          return await runChain({
            token: { ...token, default_status: start.status, default_content: String(start.content), default_content_type: start.contentType },
            request,
            rawBody: record.body,
            actions,
            services,
            pluginServices,
            registry,
            budgetMs: opts.budgetMs,
            variables: opts.variables,
            queued: opts.queued,
            dryRun: opts.dryRun,
            trace: opts.dryRun,
            // Test runs are not the service's work: they stay out of the metrics.
            observe: opts.dryRun ? undefined : ctx.metrics.actionRun,
          });
        },
      };
      ctx.provide(ACTIONS, runtime);

      // Action errors go to the account's error log when that module runs (core/errorlog).
      const errorLog = ctx.get(ERROR_LOG);
      const typesOf = (steps: ReadonlyArray<{ id: string; type: string }>) => new Map(steps.map((s) => [s.id, s.type]));
      const jobs: JobQueueLike | undefined = ctx.get(JOBS);
      const gate = new QueueProfileGate(store.counters, clock);
      if (jobs) {
        defineQueuedActions(jobs, {
          budgetMs: queuedBudgetMs,
          gate,
          reportErrors: (token, requestId, errors, steps) => errorLog?.actionErrors(token, requestId, errors, typesOf(steps)),
          store,
          workflows,
          logger,
          now: () => clock.now(),
          run: async (token, record, steps, variables) => {
            const result = await runtime.run(
              token,
              record,
              steps,
              { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} },
              {
                budgetMs: queuedBudgetMs,
                httpTimeoutMs: queuedBudgetMs,
                variables,
                queued: true,
              },
            );
            if (result.errors.length) errorLog?.actionErrors(token, record.uuid, result.errors, typesOf(steps));
            return result;
          },
        });
      }

      ctx.pipeline.actions = async (token, record, files, start) => {
        const steps = await workflows.chainSteps(token);
        if (!steps.length) return null;
        // Without a job queue (no scheduler module), queued actions run inline.
        const { inline, groups } = jobs ? splitQueued(steps) : { inline: steps, groups: [] };
        const result = await runtime.run(token, record, inline, start, { files });
        // Into the account's error log (GET /errors); a capture not stored has no request to link.
        if (result.errors.length) {
          errorLog?.actionErrors(token, result.dontSave ? null : record.uuid, result.errors, typesOf(inline));
          // Named by the request's ID, as the capture's own log line is.
          logger.info('actions reported errors', { request: record.uuid, token: token.uuid, errors: result.errors.length, first: result.errors[0]!.message });
        }
        const disabled = await failureStreaks.record(token, result);
        // An action switched off for failing too often is worth an entry of its own.
        if (disabled.length)
          errorLog?.actionErrors(
            token,
            result.dontSave ? null : record.uuid,
            disabled.map((message) => ({ action: /^Action (\S+) /.exec(message)?.[1] ?? '', message })),
            typesOf(inline),
          );
        // The result's lines are this run's own: added to only when there is more to say.
        const output = disabled.length ? [...result.output, ...disabled] : result.output;
        if (groups.length && !result.stopped) {
          for (const g of groups) {
            const data: QueuedJobData = { token: token.uuid, request: record.uuid, steps: g.steps.map((s) => s.id), variables: result.runtimeVariables };
            if (result.dontSave || token.request_limit <= 0) data.snapshot = snapshotOf(record);
            let delay = g.delay;
            let via = '';
            if (g.profile) {
              // A profile of another account (or one deleted since) does not apply.
              const profile = await store.queueProfiles.get(g.profile);
              if (profile && profile.user_id === token.user_id) {
                delay += profile.initial_delay;
                data.profile = await gate.ticket(profile, clock.now() + delay * 1000);
                via = ` in Queue Profile "${profile.name}"`;
              } else via = ' (its Queue Profile no longer exists)';
            }
            await jobs!.enqueue(QUEUED_ACTIONS_JOB, data, clock.now() + delay * 1000);
            output.push(`Queued ${g.steps.length} action(s) to run in ${delay} s${via}`);
          }
        }
        // Actions asked to run later (WebhookScript's delay()) become jobs on this request.
        if (result.later.length) {
          if (jobs) output.push(...(await queueLater(jobs, clock.now(), token, record, result)));
          else output.push(`Error: ${result.later.length} delayed action(s) not run: this server has no job scheduler`);
        }
        return {
          response: result.response ? { status: result.response.status, content: result.response.content, contentType: result.response.contentType, headers: result.response.headers } : null,
          dontSave: result.dontSave,
          output,
          redact: result.redact,
          errors: result.errors,
        };
      };

      return {
        routers: [actionsRouter(ctx, runtime, () => ctx.get(MAIL_RELAY)), queueProfilesRouter(ctx)],
        listening(url) {
          baseUrl ??= url;
        },
        async stop() {
          await pool?.close();
        },
      };
    },
  };
}
