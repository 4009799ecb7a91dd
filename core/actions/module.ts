// The action runtime as a service module: loads the plugins, runs a token's chain on every capture,
// and serves the actions, workflow, action-types and global-variables APIs.
import { container as rootContainer, instanceCachingFactory } from '../sdk/container.js';
import { requestView } from '../capture/request-view.js';
import { actionsRouter } from '../http/actions/actions.router.js';
import { globalsRouter } from '../http/globals/globals.router.js';
import type { CapturedResponse } from '../capture/pipeline.js';
import type { ModuleContext, ServiceModule } from '../modules.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { applyWorkflowDir } from '../workflows/apply-dir.js';
import type { Step } from '../workflows/document.js';
import { WorkflowService } from '../workflows/service.js';
import { createOutboundClient, resolveAllowed, type OutboundClient } from '../net/outbound.js';
import { SANDBOX_POOL, createSandboxPool, type SandboxPool } from '../sandbox/index.js';
import { CLOCK, COUNTERS, HTTP_CLIENT, LOGGER, NETWORK, type CapturedRequest, type HttpClient, type HttpRequest, type HttpResponse, type Network, type Services } from '../sdk/index.js';
import { MAILER, type Mailer } from '../sdk/mail.js';
import { CORE_ACTIONS } from './builtin.js';
import { loadPlugins } from './loader.js';
import { SealError, createSealer, loadSecretKey } from '../auth/sealing.js';
import { providersRouter } from '../http/providers/providers.router.js';
import { ProviderService, providerTypes } from '../providers/service.js';
import { requestReader } from './request-reader.js';
import { accountGlobals } from './services.js';
import { FailureTracker } from './failures.js';
import { ACTIONS, ERROR_LOG, JOBS, MAILER as MAILER_KEY } from '../service-keys.js';
import { templatesRouter } from '../http/templates/templates.router.js';
import { databasesRouter } from '../http/databases/databases.router.js';
import { DatabaseService } from '../databases/service.js';
import { TemplateService } from '../templates/service.js';
import { QUEUED_ACTIONS_JOB, QUEUED_BUDGET_MS, QUEUED_HTTP_TIMEOUT_MS, defineQueuedActions, queueLater, snapshotOf, splitQueued, type JobQueueLike, type QueuedJobData } from './queued.js';
import type { ActionRegistry } from './registry.js';
import { runChain, type ChainResult } from './runner.js';
import { ParameterSecrets } from './secret-params.js';

/** Whose global variables a token's actions see: its owner's, or the token's own when anonymous. */
export function globalsOwner(token: Pick<TokenRecord, 'uuid' | 'user_id'>): string {
  return token.user_id !== null ? `user:${token.user_id}` : `token:${token.uuid}`;
}

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

export interface RunOptions {
  budgetMs?: number;
  /** Runtime variables the chain starts with (queued actions continue from the inline ones). */
  variables?: Record<string, string>;
  /** Default timeout of the actions' HTTP requests. */
  httpTimeoutMs?: number;
  /** Bytes of the capture's uploaded files by file id (a fresh capture is not stored yet). */
  files?: ReadonlyMap<string, Buffer>;
  /** A test run: nothing is stored (see ChainInput.dryRun), and the variables after each step are traced. */
  dryRun?: boolean;
}

export interface ActionRuntime {
  registry: ActionRegistry;
  workflows: WorkflowService;
  /** Runs steps on a stored or fresh capture, starting from the given response. */
  run(token: TokenRecord, record: RequestRecord, steps: Step[], start: CapturedResponse, opts?: RunOptions): Promise<ChainResult>;
}

export function createActionsModule(): ServiceModule {
  return {
    name: 'actions',
    provides: [ACTIONS],
    uses: [JOBS, ERROR_LOG, MAILER_KEY],
    async start(ctx: ModuleContext) {
      const { store, clock, logger, config } = ctx;
      // Every request an action makes goes through the one outbound client and its policy.
      const outbound = createOutboundClient(config);
      const viaClient = async (client: Pick<OutboundClient, 'request'>, req: HttpRequest): Promise<HttpResponse> => {
        const r = await client.request({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body: req.body,
          timeoutMs: req.timeoutMs,
          signal: req.signal,
          maxRedirects: req.maxRedirects,
          maxBodyBytes: req.maxBodyBytes,
          insecureTls: req.insecureTls,
        });
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(r.headers)) headers[k] = v.join(', ');
        return { status: r.status, headers, body: r.body, url: r.url, truncated: r.truncated };
      };
      const http: HttpClient = {
        request: (req) => viaClient(outbound, req),
        session() {
          const s = outbound.session();
          return { request: (req) => viaClient(s, req), close: () => s.close() };
        },
      };
      const policy = { allowLoopback: config.OUTBOUND_ALLOW_LOOPBACK, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE };
      const network: Network = { resolve: (host) => resolveAllowed(host, policy) };
      const parent = rootContainer.createChildContainer();
      parent.registerInstance(HTTP_CLIENT, http);
      parent.registerInstance(COUNTERS, store.counters);
      parent.registerInstance(CLOCK, clock);
      parent.registerInstance(LOGGER, logger);
      parent.registerInstance(NETWORK, network);
      // Outgoing mail (send_email): the mail module's mailer (core/mail), looked up on first use.
      const noMailer: Mailer = { send: () => Promise.reject(new Error('Sending e-mail is not available: the mail module is not running')) };
      parent.register(MAILER, { useFactory: () => ctx.get(MAILER_KEY) ?? noMailer });
      // One JavaScript sandbox pool per process, started on first use and closed with the module.
      let pool: SandboxPool | undefined;
      const poolOptions = { runTimeoutMs: config.SANDBOX_RUN_TIMEOUT_MS, maxConcurrentPerAccount: config.SANDBOX_MAX_CONCURRENT_PER_ACCOUNT, onRun: ctx.metrics.sandboxRun };
      parent.register(SANDBOX_POOL, { useFactory: instanceCachingFactory(() => (pool = createSandboxPool(poolOptions))) });
      ctx.metrics.sandboxSource(() => pool?.stats() ?? null);
      // The loader reports each plugin that fails to load, once.
      const { registry } = await loadPlugins({ packages: config.PLUGINS, container: parent, logger });
      // Including templates needs the store, so these are core's own rather than a plugin's.
      registry.addAll('core', CORE_ACTIONS, parent);
      const secretKey = loadSecretKey(config);
      // One key seals provider credentials and secret action parameters; SECRET_KEY_PREVIOUS keys
      // still open what they sealed until `npm run cli -- secrets rotate` re-seals it.
      const sealer = createSealer(secretKey, config.SECRET_KEY_PREVIOUS);
      const secrets = new ParameterSecrets(registry, sealer);
      const templates = new TemplateService(store, registry, clock, secrets);

      const workflows = new WorkflowService(store, registry, clock, secrets);
      const failureStreaks = new FailureTracker(store, workflows, clock, logger, config.ACTION_DISABLE_AFTER_FAILURES);
      ctx.tokens.cloneHooks.push((from, to) => workflows.copy(from, to));

      const providers = new ProviderService(store, registry, sealer, clock);
      // Hosted databases (off without DATABASES_POSTGRES_URL): their roles' passwords derive from the key.
      const databases = new DatabaseService(store, clock, { url: config.DATABASES_POSTGRES_URL, secretKey, statementTimeoutMs: config.DATABASES_STATEMENT_TIMEOUT_MS, logger });
      if (store.kind === 'mongo' && !config.SECRET_KEY) {
        logger.warn('SECRET_KEY is not set: provider credentials are sealed with the key file in DATA_DIR; every instance sharing this database must use the same key (set SECRET_KEY)');
      }
      const providersFor = (token: TokenRecord): Services['providers'] => providers.forAccount(token.user_id);
      const requestsFor = (token: TokenRecord): Services['requests'] => requestReader(store, token, clock);
      const servicesFor = (token: TokenRecord): Services => {
        const owner = globalsOwner(token);
        return {
          http,
          counters: store.counters,
          clock,
          logger,
          net: network,
          providers: providersFor(token),
          requests: requestsFor(token),
          databases: databases.forAccount(token.user_id),
          globals: accountGlobals(store.globals, owner, clock),
        };
      };

      const runtime: ActionRuntime = {
        registry,
        workflows,
        async run(token, record, chainSteps, start, opts = {}) {
          const steps = (await templates.expand(token.user_id, chainSteps)).map((s) => openSecrets(secrets, s));
          const services = servicesFor(token);
          // Actions' HTTP requests default to 15 s inline and 60 s queued (the seed's limits).
          const timeoutMs = opts.httpTimeoutMs ?? INLINE_HTTP_TIMEOUT_MS;
          const withTimeout = (req: HttpRequest): HttpRequest => ({ ...req, timeoutMs: req.timeoutMs ?? timeoutMs });
          services.http = {
            request: (req) => http.request(withTimeout(req)),
            session() {
              const s = http.session!();
              return { request: (req) => s.request(withTimeout(req)), close: () => s.close() };
            },
          };
          const request = requestView(record) as unknown as CapturedRequest;
          // Uploaded files' bytes, for `$request.file.<name>.content$` and actions that send them on.
          if (record.files.length) {
            request.files = await Promise.all(
              record.files.map(async (f) => ({ ...f, content: opts.files?.get(f.id) ?? (await store.requests.getFile(record.token_id, record.uuid, f.id)) ?? undefined })),
            );
          }
          return runChain({
            token: { ...token, default_status: start.status, default_content: String(start.content), default_content_type: start.contentType },
            request,
            rawBody: record.body,
            actions: steps.map((s, i) => ({ uuid: s.id, type: s.type, order: i + 1, parameters: s.parameters, disabled: s.disabled, condition: s.condition, condition_action: s.condition_action, unavailable: s.unavailable })),
            services,
            registry,
            budgetMs: opts.budgetMs,
            variables: opts.variables,
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
      if (jobs) {
        defineQueuedActions(jobs, {
          store,
          workflows,
          logger,
          now: () => clock.now(),
          run: async (token, record, steps, variables) => {
            const result = await runtime.run(token, record, steps, { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} }, {
              budgetMs: QUEUED_BUDGET_MS,
              httpTimeoutMs: QUEUED_HTTP_TIMEOUT_MS,
              variables,
            });
            if (result.errors.length) errorLog?.actionErrors(token, record.uuid, result.errors, typesOf(steps));
            return result;
          },
        });
      }

      ctx.pipeline.actions = async (token, record, files, start) => {
        const steps = await workflows.steps(token);
        if (!steps.length) return null;
        // Without a job queue (no scheduler module), queued actions run inline.
        const { inline, groups } = jobs ? splitQueued(steps) : { inline: steps, groups: [] };
        const result = await runtime.run(token, record, inline, start, { files });
        // Into the account's error log (GET /errors); a capture not stored has no request to link.
        if (result.errors.length) errorLog?.actionErrors(token, result.dontSave ? null : record.uuid, result.errors, typesOf(inline));
        const disabled = await failureStreaks.record(token, result);
        // An action switched off for failing too often is worth an entry of its own.
        if (disabled.length) errorLog?.actionErrors(token, result.dontSave ? null : record.uuid, disabled.map((message) => ({ action: /^Action (\S+) /.exec(message)?.[1] ?? '', message })), typesOf(inline));
        const output = [...result.output, ...disabled];
        if (groups.length && !result.stopped) {
          for (const g of groups) {
            const data: QueuedJobData = { token: token.uuid, request: record.uuid, steps: g.steps.map((s) => s.id), variables: result.runtimeVariables };
            if (result.dontSave || token.request_limit <= 0) data.snapshot = snapshotOf(record);
            await jobs!.enqueue(QUEUED_ACTIONS_JOB, data, clock.now() + g.delay * 1000);
            output.push(`Queued ${g.steps.length} action(s) to run in ${g.delay} s`);
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

      await applyWorkflowDir(ctx, workflows);
      return {
        routers: [actionsRouter(ctx, runtime), globalsRouter(ctx), providersRouter(ctx, providers, () => providerTypes(registry)), templatesRouter(ctx, templates, (token) => workflows.steps(token)), databasesRouter(ctx, databases)],
        async stop() {
          await pool?.close();
          await databases.close();
        },
      };
    },
  };
}
