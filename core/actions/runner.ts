// Runs a token's action chain on one capture. Nothing an action does (throwing, hanging, bad
// parameters) escapes as an exception: it becomes an entry in `errors` and the chain goes on.
import { hasBytes, textBytes } from '../sdk/bytes.js';
import type { ChainLine } from '../sdk/runner.js';
import { ActionRedactionRuleSchema, DEFAULT_REPLACEMENT, compileRules, type CompiledRule } from '../sdk/redaction.js';
import type { ActionContext, CapturedRequest, GlobalVariables, LogOptions, ResponseDraft, Services, TokenInfo, Variables } from '../sdk/index.js';
import type { DependencyContainer } from '../sdk/container.js';
import type { ActionRegistry } from './registry.js';
import { servicesWith } from './services.js';
import { stepParams } from './step-params.js';
import { VariableScope, requestVariables } from './variables.js';

export interface ChainAction {
  uuid: string;
  type: string;
  order: number;
  parameters: Record<string, unknown>;
  disabled?: boolean | null;
  /** UUID of an earlier `condition`/`conditions` action: this one runs only when that one passed. */
  condition?: string | null;
  /** `'false'` runs the action when the referenced condition failed instead. Default `'true'`. */
  condition_action?: 'true' | 'false' | null;
  /** Why the action cannot run (a secret that cannot be opened): it fails with this message. */
  unavailable?: string;
}

export interface ChainInput {
  token: TokenInfo;
  request: CapturedRequest;
  rawBody: Buffer;
  actions: ChainAction[];
  services: Services;
  /**
   * The services an action sees, from its plugin's container (core/actions/services.ts); default
   * `services`. The chain's global variables stay one view, so later actions see what earlier set.
   */
  pluginServices?: (container: DependencyContainer) => Services;
  registry: ActionRegistry;
  /** Total time for the chain; 30 s for a capture URL. */
  budgetMs?: number;
  /** Runtime variables defined before the first action (template variables, tests). */
  variables?: Record<string, string>;
  /** A test run: global variables an action stores reach the following actions but are not written. */
  dryRun?: boolean;
  /** Records the runtime variables after each action that ran (`trace`), for a test run. */
  trace?: boolean;
  /** Told about each action that ran, of a registered type, and whether it reported an error (metrics). */
  observe?: (type: string, failed: boolean) => void;
}

export interface ChainStepTrace {
  action: string;
  type: string;
  order: number;
  /** The variables actions had set when this one finished. */
  variables: Record<string, string>;
}

// One definition, the SDK's: plugin tests see the same lines through @capture/sdk/testing.
export type { ChainLine };

export interface ChainResult {
  /** The response to send, or null when no action changed the token's default response. */
  response: ResponseDraft | null;
  dontSave: boolean;
  stopped: boolean;
  /** Output lines, each prefixed with `[order type]`, errors included. */
  output: string[];
  /** The same lines with their action attributed (for the test-action API and the web page). */
  lines: ChainLine[];
  errors: Array<{ action: string; message: string }>;
  /** Request and runtime variables at the end of the run. */
  variables: Record<string, string>;
  /** Only the variables actions set. */
  runtimeVariables: Record<string, string>;
  /** IDs of the actions that ran (with or without an error), each once. */
  ran: string[];
  /** With `trace`: one entry each time an action ran, in order. */
  trace?: ChainStepTrace[];
  /** Redaction rules of `redact` actions (ctx.redact), for the caller to apply when it stores the request. */
  redact: CompiledRule[];
  /** Actions asked to run later (`ctx.later`, WebhookScript's delay()), for the caller to queue. */
  later: LaterAction[];
}

/** An action to run `delay` seconds after the capture (queued by the caller as a job). */
export interface LaterAction {
  delay: number;
  type: string;
  parameters: Record<string, unknown>;
  /** Which action asked for it. */
  from: { uuid: string; type: string; order: number };
}

export const DEFAULT_BUDGET_MS = 30_000;
export const MAX_REPETITIONS = 1000;
/** How deep actions run from actions (ctx.runAction) may nest. */
export const MAX_NESTED_ACTIONS = 3;
/** Actions one chain run may ask to run later (ctx.later). */
export const MAX_LATER_ACTIONS = 10;
/** The longest ctx.later delay: 7 days (webhook.site's delay()). */
export const MAX_LATER_DELAY_S = 604_800;

class BudgetSpent extends Error {
  constructor(budgetMs: number) {
    super(`The actions' time budget of ${budgetMs / 1000} s was spent; the remaining actions were skipped`);
  }
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => !!v && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function sameResponse(a: ResponseDraft, b: ResponseDraft): boolean {
  const ha = Object.entries(a.headers);
  return (
    a.status === b.status &&
    a.contentType === b.contentType &&
    (Buffer.isBuffer(a.content) && Buffer.isBuffer(b.content) ? a.content.equals(b.content) : a.content === b.content) &&
    ha.length === Object.keys(b.headers).length &&
    ha.every(([k, v]) => b.headers[k] === v)
  );
}

/** A Content-Type set as a header becomes the response's content type. */
function normalise(r: ResponseDraft): ResponseDraft {
  const headers: Record<string, string> = {};
  let contentType = r.contentType;
  for (const [name, value] of Object.entries(r.headers)) {
    if (name.toLowerCase() === 'content-type') contentType = value;
    else headers[name] = value;
  }
  // Text holding bytes (a `$pdf$`, a downloaded image) is sent as those bytes.
  const content = typeof r.content === 'string' && hasBytes(r.content) ? textBytes(r.content) : r.content;
  return { status: r.status, content, contentType, headers };
}

type Nested = { depth: number; errors: string[]; set: Record<string, string> };

/** What every action's context of one run shares (made once per run, not per action). */
interface RunHooks {
  token: TokenInfo;
  request: CapturedRequest;
  rawBody: Buffer;
  response: ResponseDraft;
  vars: Pick<Variables, 'get' | 'has' | 'all'>;
  scope: VariableScope;
  template: (text: string) => string;
  timeLeftMs: () => number;
  signal: () => AbortSignal;
  line: (step: ChainAction, text: string, extra?: Partial<ChainLine>) => void;
  stop: () => void;
  dontSave: () => void;
  redact: (rules: CompiledRule[]) => void;
  setResult: (id: string, passed: boolean) => void;
  runNested: (step: ChainAction, type: string, parameters: Record<string, unknown>, depth: number) => Promise<Record<string, string>>;
  later: (step: ChainAction, delaySeconds: number, type: string, parameters: Record<string, unknown>) => void;
}

/**
 * One action's context. A class, so that an action costs one object rather than a dozen fresh
 * closures: the functions an action may take off its context (`const { log } = ctx`) are made
 * on first read, bound to it. Once the action ended (`live` false) nothing it calls changes the run.
 */
class StepContext implements ActionContext {
  /** False once the action ended (or the budget was spent while it ran). */
  live = true;
  repeatItems: Array<Record<string, string>> | undefined;
  readonly #run: RunHooks;
  readonly #step: ChainAction;
  readonly #nested: Nested | undefined;
  readonly #fail: (step: ChainAction, message: string) => void;
  #action?: ActionContext['action'];
  #vars?: Variables;
  #log?: ActionContext['log'];
  #error?: ActionContext['error'];
  #stop?: ActionContext['stop'];
  #dontSave?: ActionContext['dontSave'];
  #redact?: ActionContext['redact'];
  #setResult?: ActionContext['setResult'];
  #repeat?: ActionContext['repeat'];
  #runAction?: ActionContext['runAction'];
  #later?: ActionContext['later'];

  constructor(
    run: RunHooks,
    step: ChainAction,
    nested: Nested | undefined,
    fail: (step: ChainAction, message: string) => void,
    readonly params: Record<string, unknown>,
    readonly rawParams: Record<string, unknown>,
    readonly services: Services,
    readonly container: DependencyContainer,
  ) {
    this.#run = run;
    this.#step = step;
    this.#nested = nested;
    this.#fail = fail;
  }

  get token() {
    return this.#run.token;
  }
  get request() {
    return this.#run.request;
  }
  get rawBody() {
    return this.#run.rawBody;
  }
  get response() {
    return this.#run.response;
  }
  get template() {
    return this.#run.template;
  }
  get timeLeftMs() {
    return this.#run.timeLeftMs;
  }
  get signal() {
    return this.#run.signal();
  }
  get action() {
    const step = this.#step;
    return (this.#action ??= { uuid: step.uuid, type: step.type, order: step.order });
  }
  get vars(): Variables {
    const { get, has, all } = this.#run.vars;
    // Listed, not spread: a spread of the shared functions cost more than the rest of the view.
    return (this.#vars ??= {
      get,
      has,
      all,
      set: this.#setVariable.bind(this),
    });
  }
  #setVariable(name: string, value: string | number | boolean): void {
    if (!this.live) return;
    this.#run.scope.set(name, value);
    if (this.#nested) this.#nested.set[name] = String(value);
  }
  // The functions an action may take off its context are bound methods, made on first read, not
  // arrows: an arrow kept in a field of the context made every run's objects survive the
  // young-generation collections (V8 then scavenged and promoted them all: the chain spent more
  // CPU in GC than in running, issue 17); a bound function does not.
  get log(): ActionContext['log'] {
    return (this.#log ??= this.#logLine.bind(this));
  }
  #logLine(text: string, options?: LogOptions): void {
    if (this.live) this.#run.line(this.#step, text, options?.markdown ? { markdown: true } : {});
  }
  get error(): ActionContext['error'] {
    return (this.#error ??= this.#failStep.bind(this));
  }
  #failStep(msg: string): void {
    if (this.live) this.#fail(this.#step, msg);
  }
  get stop(): ActionContext['stop'] {
    return (this.#stop ??= this.#stopRun.bind(this));
  }
  #stopRun(): void {
    if (this.live) this.#run.stop();
  }
  get dontSave(): ActionContext['dontSave'] {
    return (this.#dontSave ??= this.#skipSaving.bind(this));
  }
  #skipSaving(): void {
    if (this.live) this.#run.dontSave();
  }
  get redact(): ActionContext['redact'] {
    return (this.#redact ??= this.#addRedaction.bind(this));
  }
  #addRedaction(rules: Parameters<ActionContext['redact']>[0], replacement?: string): void {
    const parsed = ActionRedactionRuleSchema.array().parse(rules);
    if (this.live) this.#run.redact(compileRules(parsed, replacement ?? DEFAULT_REPLACEMENT, 'action', this.#step.uuid));
  }
  get setResult(): ActionContext['setResult'] {
    return (this.#setResult ??= this.#recordResult.bind(this));
  }
  #recordResult(passed: boolean): void {
    if (this.live) this.#run.setResult(this.#step.uuid, passed);
  }
  get repeat(): ActionContext['repeat'] {
    return (this.#repeat ??= this.#repeatOver.bind(this));
  }
  #repeatOver(items: Array<Record<string, string>>): void {
    if (this.live) this.repeatItems = items.slice(0, MAX_REPETITIONS);
  }
  get runAction(): ActionContext['runAction'] {
    return (this.#runAction ??= this.#runNested.bind(this));
  }
  async #runNested(type: string, parameters?: Record<string, unknown>): Promise<Record<string, string>> {
    if (!this.live) throw new Error('The action has ended');
    const depth = (this.#nested?.depth ?? 0) + 1;
    if (depth > MAX_NESTED_ACTIONS) throw new Error(`Actions run from actions may nest at most ${MAX_NESTED_ACTIONS} deep`);
    return this.#run.runNested(this.#step, String(type), parameters ?? {}, depth);
  }
  get later(): ActionContext['later'] {
    return (this.#later ??= this.#runLater.bind(this));
  }
  #runLater(delaySeconds: number, type: string, parameters: Record<string, unknown>): void {
    if (!this.live) throw new Error('The action has ended');
    this.#run.later(this.#step, delaySeconds, type, parameters);
  }
}

/** Whether the actions are sorted by order already (as the runtime passes them): no copy to sort. */
function inOrder(actions: readonly ChainAction[]): boolean {
  for (let i = 1; i < actions.length; i++) if (!(actions[i - 1]!.order <= actions[i]!.order)) return false;
  return true;
}

export async function runChain(input: ChainInput): Promise<ChainResult> {
  const { token, request, rawBody, registry, services } = input;
  const budgetMs = input.budgetMs ?? DEFAULT_BUDGET_MS;
  const clock = services.clock;
  const deadline = clock.now() + budgetMs;
  const steps = inOrder(input.actions) ? input.actions : [...input.actions].map((a, i) => ({ a, i })).sort((x, y) => x.a.order - y.a.order || x.i - y.i).map((x) => x.a);
  // Deferred plugin loading: a flag check once every plugin is in.
  if (registry.deferred) await registry.ready(steps.map((s) => s.type));

  const initial: ResponseDraft = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
  const response: ResponseDraft = { ...initial, headers: {} };
  const lines: ChainLine[] = [];
  const errors: ChainResult['errors'] = [];
  const results = new Map<string, boolean>();
  let stopped = false;
  let dontSave = false;
  const redactRules: CompiledRule[] = [];

  let globalsSnapshot = new Map<string, string>();
  if (steps.some((s) => !s.disabled)) {
    try {
      globalsSnapshot = new Map(Object.entries(await services.globals.all()));
    } catch (e) {
      services.logger.warn('Could not read global variables for the action chain', { error: message(e) });
    }
  }
  const scope = new VariableScope(requestVariables(request, token, rawBody), globalsSnapshot);
  for (const [k, v] of Object.entries(input.variables ?? {})) scope.set(k, v);

  // Stored globals also update the snapshot so later actions see them.
  const globals: GlobalVariables = {
    get: (name) => services.globals.get(name),
    all: () => services.globals.all(),
    set: async (name, value) => {
      if (!input.dryRun) await services.globals.set(name, value);
      scope.setGlobal(name, value);
    },
    delete: async (name) => {
      const existed = input.dryRun ? scope.get(`global.${name}`) !== undefined : await services.globals.delete(name);
      scope.deleteGlobal(name);
      return existed;
    },
  };
  const actionServices: Services = servicesWith(services, { globals });
  // Each plugin's services, resolved once per run (not per action: resolving them is one of the
  // larger costs of a short action).
  const servicesByContainer = new Map<DependencyContainer, Services>();
  const servicesOf = (container: DependencyContainer): Services => {
    if (!input.pluginServices) return actionServices;
    let found = servicesByContainer.get(container);
    if (!found) servicesByContainer.set(container, (found = servicesWith(input.pluginServices(container), { globals })));
    return found;
  };

  // The budget: one timer per run. Its error and the actions' abort signal are made only when
  // needed: most runs never spend the budget nor read ctx.signal, and an Error captures a stack.
  let budgetError: BudgetSpent | undefined;
  let controller: AbortController | undefined;
  let rejectSpent: (e: BudgetSpent) => void = () => {};
  const budgetSpent = new Promise<never>((_, reject) => (rejectSpent = reject));
  budgetSpent.catch(() => {});
  const spendBudget = (): BudgetSpent => {
    if (!budgetError) {
      budgetError = new BudgetSpent(budgetMs);
      controller?.abort(budgetError);
      rejectSpent(budgetError);
    }
    return budgetError;
  };
  const abortSignal = (): AbortSignal => {
    if (!controller) {
      controller = new AbortController();
      if (budgetError) controller.abort(budgetError);
    }
    return controller.signal;
  };
  const timer = setTimeout(spendBudget, budgetMs);

  const line = (step: ChainAction, text: string, extra: Partial<ChainLine> = {}) =>
    lines.push({ action: step.uuid, type: step.type, order: step.order, text, ...extra });
  const failStep = (step: ChainAction, msg: string) => {
    errors.push({ action: step.uuid, message: msg });
    line(step, `Error: ${msg}`, { error: true });
    scope.set(`error.${step.order}`, msg);
  };

  // What every action's context shares (made once per run, not per action).
  const readVariable = (name: string) => scope.get(name);
  const hasVariable = (name: string) => scope.has(name);
  const allVariables = () => scope.all();
  const timeLeftMs = () => Math.max(0, deadline - clock.now());
  const run: RunHooks = {
    token,
    request,
    rawBody,
    response,
    vars: { get: readVariable, has: hasVariable, all: allVariables },
    scope,
    template: scope.template,
    timeLeftMs,
    signal: abortSignal,
    line,
    stop: () => void (stopped = true),
    dontSave: () => void (dontSave = true),
    redact: (rules) => void redactRules.push(...rules),
    setResult: (id, passed) => void results.set(id, passed),
    runNested: async (step, type, parameters, depth) => {
      if (registry.deferred) await registry.ready([type]);
      const inner = { depth, errors: [] as string[], set: {} as Record<string, string> };
      await runStep({ uuid: step.uuid, type, order: step.order, parameters }, inner);
      if (inner.errors.length) throw new Error(`${type}: ${inner.errors.join('; ')}`);
      return inner.set;
    },
    later: (step, delaySeconds, type, parameters) => {
      const delay = Math.floor(Number(delaySeconds));
      if (!Number.isFinite(delay) || delay < 0 || delay > MAX_LATER_DELAY_S) throw new Error(`The delay must be 0 to ${MAX_LATER_DELAY_S} seconds`);
      if (!registry.has(type)) throw new Error(`Unknown action type "${type}"`);
      if (later.length >= MAX_LATER_ACTIONS) throw new Error(`A run may queue at most ${MAX_LATER_ACTIONS} actions for later`);
      later.push({ delay, type, parameters, from: { uuid: step.uuid, type: step.type, order: step.order } });
    },
  };

  const ran = new Set<string>();
  const trace: ChainStepTrace[] | undefined = input.trace ? [] : undefined;
  const later: LaterAction[] = [];
  /**
   * Runs one action; returns the items to repeat the rest of the chain over, if it asked to. An
   * action run from another one (`nested`, ctx.runAction) reports its errors there instead of
   * to the chain, and its repetitions are ignored.
   */
  async function runStep(step: ChainAction, nested?: Nested): Promise<Array<Record<string, string>> | undefined> {
    const fail = nested ? (_step: ChainAction, msg: string) => void nested.errors.push(msg) : failStep;
    ran.add(step.uuid);
    const entry = registry.get(step.type);
    if (!entry) return void fail(step, registry.unavailable(step.type) ?? `Unknown action type "${step.type}"`);
    if (step.unavailable) return void fail(step, step.unavailable);
    const def = entry.definition;
    const raw = step.parameters ?? {};
    const parsed = stepParams(def, raw, scope.resolve);
    if (!parsed.success) return void fail(step, `Invalid parameter ${['parameters', ...parsed.path.map(String)].join('.')}: ${parsed.message}`);
    const ctx = new StepContext(run, step, nested, fail, parsed.data, raw, servicesOf(entry.container), entry.container);
    try {
      // Most actions finish synchronously: only a pending promise races the budget.
      const done = def.execute(ctx, parsed.data);
      if (isThenable(done)) await Promise.race([done, budgetSpent]);
    } catch (e) {
      const spent = budgetError;
      if (spent && e === spent) {
        fail(step, spent.message);
        stopped = true;
      } else {
        fail(step, message(e));
      }
    } finally {
      ctx.live = false;
    }
    return ctx.repeatItems;
  }

  async function runFrom(start: number): Promise<void> {
    for (let i = start; i < steps.length && !stopped; i++) {
      const step = steps[i];
      if (step.disabled) continue;
      if (budgetError || clock.now() >= deadline) {
        failStep(step, spendBudget().message);
        stopped = true;
        return;
      }
      if (step.condition) {
        const passed = results.get(step.condition);
        const wanted = step.condition_action !== 'false';
        if (passed !== wanted) {
          line(step, `Skipped: condition ${step.condition} ${passed === undefined ? 'did not run' : passed ? 'passed' : 'did not pass'}`);
          continue;
        }
      }
      const errorsBefore = errors.length;
      const items = await runStep(step);
      // Registered types only: a label per unknown type name would grow without bound.
      if (input.observe && registry.get(step.type)) input.observe(step.type, errors.length > errorsBefore);
      if (trace) trace.push({ action: step.uuid, type: step.type, order: step.order, variables: scope.runtimeVariables() });
      if (items) {
        for (const item of items) {
          if (stopped) break;
          for (const [k, v] of Object.entries(item)) scope.set(k, v);
          await runFrom(i + 1);
        }
        return;
      }
    }
  }

  try {
    await runFrom(0);
  } catch (e) {
    // Only a bug in the runner itself gets here; still no exception out of runChain.
    services.logger.error('Action chain failed', { error: message(e), token: token.uuid });
    errors.push({ action: '', message: message(e) });
  } finally {
    clearTimeout(timer);
  }

  const final = normalise({ ...response, headers: { ...response.headers } });
  const result: ChainResult = new RunResult(
    sameResponse(final, initial) ? null : final,
    dontSave,
    stopped,
    lines.map((l) => `[${l.order} ${l.type}] ${l.text}`),
    lines,
    errors,
    [...ran],
    redactRules,
    later,
    scope,
  );
  if (trace) result.trace = trace;
  return result;
}

/**
 * A run's result. `variables` and `runtimeVariables` are copied from the scope when first read (a
 * capture's chain result never reads them; nothing changes the scope once the run is over: late
 * actions are no longer live). They are own enumerable accessors, as the fields are, but the same
 * two functions for every result: accessors written in an object literal were new functions and a
 * new property record each run, kept by V8 where the young-generation collections treat them as
 * live, so every run's objects were scavenged and promoted (issue 17). Once read, a plain property.
 */
class RunResult implements ChainResult {
  declare variables: Record<string, string>;
  declare runtimeVariables: Record<string, string>;
  declare trace?: ChainStepTrace[];
  readonly #scope: VariableScope;

  constructor(
    public response: ResponseDraft | null,
    public dontSave: boolean,
    public stopped: boolean,
    public output: string[],
    public lines: ChainLine[],
    public errors: ChainResult['errors'],
    public ran: string[],
    public redact: CompiledRule[],
    public later: LaterAction[],
    scope: VariableScope,
  ) {
    this.#scope = scope;
    // One defineProperty each: half the cost of one defineProperties.
    Object.defineProperty(this, 'variables', RunResult.#variables);
    Object.defineProperty(this, 'runtimeVariables', RunResult.#runtimeVariables);
  }

  static readonly #variables: PropertyDescriptor = {
    get(this: RunResult) {
      return settle(this, 'variables', this.#scope.all());
    },
    set(this: RunResult, value: Record<string, string>) {
      settle(this, 'variables', value);
    },
    enumerable: true,
    configurable: true,
  };
  static readonly #runtimeVariables: PropertyDescriptor = {
    get(this: RunResult) {
      return settle(this, 'runtimeVariables', this.#scope.runtimeVariables());
    },
    set(this: RunResult, value: Record<string, string>) {
      settle(this, 'runtimeVariables', value);
    },
    enumerable: true,
    configurable: true,
  };
}

/** Replaces a lazy property by its value (a plain property from then on). */
function settle<K extends 'variables' | 'runtimeVariables'>(target: ChainResult, key: K, value: ChainResult[K]): ChainResult[K] {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  return value;
}
