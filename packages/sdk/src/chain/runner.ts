// Runs a token's action chain on one capture. Nothing an action does (throwing, hanging, bad
// parameters) escapes as an exception: it becomes an entry in `errors` and the chain goes on.
import { hasBytes, textBytes } from '../bytes.js';
import { ActionRedactionRuleSchema, compileRules, type CompiledRule, DEFAULT_REPLACEMENT } from '../redaction.js';
import type { ActionContext, AnyActionDefinition, CapturedRequest, DependencyContainer, GlobalVariables, LogOptions, ResponseDraft, Services, TokenInfo, Variables } from '../index.js';
import { servicesWith } from './services-with.js';
import { stepParams } from './step-params.js';
import { RequestVariables, VariableScope } from './variables.js';

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
  registry: ActionTypes;
  /** Total time for the chain; 30 s for a capture URL. */
  budgetMs?: number;
  /** The chain runs queued, as a job after the capture was answered (ctx.queued). */
  queued?: boolean;
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
/** One output line of a chain, attributed to its action. */
export interface ChainLine {
  action: string;
  type: string;
  order: number;
  text: string;
  markdown?: boolean;
  error?: boolean;
}

/**
 * The action types a chain can run: the host's registry (core/actions/registry.ts), or the
 * definitions a test gives runAction.
 */
export interface ActionTypes {
  get(type: string): { definition: AnyActionDefinition; container: DependencyContainer } | undefined;
  has(type: string): boolean;
  /** True while some types' plugins are not imported yet; `ready` imports them. */
  readonly deferred: boolean;
  ready(types?: Iterable<string>): Promise<void>;
  /** Why a known type cannot run (its plugin failed to load), or undefined. */
  unavailable(type: string): string | undefined;
}

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

/**
 * The response to send, or null when it is still the token's default (told without copying it: the
 * common case). A Content-Type set as a header becomes the response's content type, and text
 * holding bytes (a `$pdf$`, a downloaded image) is sent as those bytes.
 */
function finalResponse(r: ResponseDraft, token: TokenInfo): ResponseDraft | null {
  const content = typeof r.content === 'string' && hasBytes(r.content) ? textBytes(r.content) : r.content;
  let contentType = r.contentType;
  const headers: Record<string, string> = {};
  let named = false;
  for (const name in r.headers) {
    if (!Object.hasOwn(r.headers, name)) continue;
    const value = r.headers[name]!;
    if (name.toLowerCase() === 'content-type') contentType = value;
    else {
      headers[name] = value;
      named = true;
    }
  }
  const same = !named && r.status === token.default_status && contentType === token.default_content_type && content === token.default_content;
  return same ? null : { status: r.status, content, contentType, headers };
}

type Nested = { depth: number; errors: string[]; set: Record<string, string> };
type Repeat = Array<Record<string, string>> | undefined;

/**
 * One action's context. A class, so that an action costs one object rather than a dozen fresh
 * closures: the functions an action may take off its context (`const { log } = ctx`) are made
 * on first read, bound to it. Once the action ended (`live` false) nothing it calls changes the run.
 */
class StepContext implements ActionContext {
  /** False once the action ended (or the budget was spent while it ran). */
  live = true;
  repeatItems: Array<Record<string, string>> | undefined;
  readonly #run: ChainRun;
  readonly #step: ChainAction;
  readonly #nested: Nested | undefined;
  #services?: Services;
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
    run: ChainRun,
    step: ChainAction,
    nested: Nested | undefined,
    readonly params: Record<string, unknown>,
    readonly rawParams: Record<string, unknown>,
    readonly container: DependencyContainer,
  ) {
    this.#run = run;
    this.#step = step;
    this.#nested = nested;
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
    return this.#run.scope.template;
  }
  get timeLeftMs() {
    return this.#run.timeLeft;
  }
  get queued(): boolean {
    return this.#run.queued;
  }
  get signal() {
    return this.#run.signal();
  }
  /** Resolved when first read: most text and logic actions use none of the services. */
  get services(): Services {
    return (this.#services ??= this.#run.servicesOf(this.container));
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
  // CPU in GC than in running: the bench's chain section); a bound function does not.
  get log(): ActionContext['log'] {
    return (this.#log ??= this.#logLine.bind(this));
  }
  #logLine(text: string, options?: LogOptions): void {
    if (this.live) this.#run.line(this.#step, text, options?.markdown ? { markdown: true } : undefined);
  }
  get error(): ActionContext['error'] {
    return (this.#error ??= this.#failStep.bind(this));
  }
  #failStep(msg: string): void {
    if (this.live) this.#run.fail(this.#step, msg, this.#nested);
  }
  get stop(): ActionContext['stop'] {
    return (this.#stop ??= this.#stopRun.bind(this));
  }
  #stopRun(): void {
    if (this.live) this.#run.stopped = true;
  }
  get dontSave(): ActionContext['dontSave'] {
    return (this.#dontSave ??= this.#skipSaving.bind(this));
  }
  #skipSaving(): void {
    if (this.live) this.#run.dontSave = true;
  }
  get redact(): ActionContext['redact'] {
    return (this.#redact ??= this.#addRedaction.bind(this));
  }
  #addRedaction(rules: Parameters<ActionContext['redact']>[0], replacement?: string): void {
    const parsed = ActionRedactionRuleSchema.array().parse(rules);
    if (this.live) this.#run.redactRules.push(...compileRules(parsed, replacement ?? DEFAULT_REPLACEMENT, 'action', this.#step.uuid));
  }
  get setResult(): ActionContext['setResult'] {
    return (this.#setResult ??= this.#recordResult.bind(this));
  }
  #recordResult(passed: boolean): void {
    if (this.live) this.#run.results.set(this.#step.uuid, passed);
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
    this.#run.runLater(this.#step, delaySeconds, type, parameters);
  }
}

/** Whether the actions are sorted by order already (as the runtime passes them): no copy to sort. */
function inOrder(actions: readonly ChainAction[]): boolean {
  for (let i = 1; i < actions.length; i++) if (!(actions[i - 1]!.order <= actions[i]!.order)) return false;
  return true;
}

/**
 * One run of a chain: its state, and what every action's context shares. A class: its functions
 * are the prototype's, where the run used to make some twenty closures (and their context objects)
 * per capture (the bench's chain section). An action that returns a pending promise is the only thing that makes
 * the run wait: the steps of a chain of synchronous actions run one after the other in one go,
 * and the budget's timer is set only when an action first leaves something pending.
 */
class ChainRun {
  readonly token: TokenInfo;
  readonly request: CapturedRequest;
  readonly rawBody: Buffer;
  readonly queued: boolean;
  readonly registry: ActionTypes;
  readonly response: ResponseDraft;
  readonly scope: VariableScope;
  readonly lines: ChainLine[] = [];
  readonly errors: ChainResult['errors'] = [];
  readonly results = new Map<string, boolean>();
  readonly redactRules: CompiledRule[] = [];
  readonly later: LaterAction[] = [];
  /** IDs of the actions that ran, each once. */
  readonly ran = new Set<string>();
  readonly trace: ChainStepTrace[] | undefined;
  stopped = false;
  dontSave = false;
  readonly #input: ChainInput;
  readonly #steps: readonly ChainAction[];
  readonly #budgetMs: number;
  readonly #deadline: number;
  readonly #clock: Services['clock'];
  /** performance.now() when the budget's timer would have been set (see #budgetSpent). */
  readonly #startedAt = performance.now();
  #budgetError: BudgetSpent | undefined;
  #controller: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #spent: Promise<never> | undefined;
  #rejectSpent: ((e: BudgetSpent) => void) | undefined;
  #vars: Pick<Variables, 'get' | 'has' | 'all'> | undefined;
  #timeLeft: (() => number) | undefined;
  #globals: GlobalVariables | undefined;
  #actionServices: Services | undefined;
  #servicesByContainer: Map<DependencyContainer, Services> | undefined;

  constructor(input: ChainInput, steps: readonly ChainAction[], budgetMs: number, deadline: number, globals: Readonly<Record<string, string>> | undefined) {
    this.#input = input;
    this.#steps = steps;
    this.#budgetMs = budgetMs;
    this.#deadline = deadline;
    this.#clock = input.services.clock;
    this.token = input.token;
    this.request = input.request;
    this.rawBody = input.rawBody;
    this.queued = input.queued ?? false;
    this.registry = input.registry;
    const token = input.token;
    this.response = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
    this.scope = new VariableScope(new RequestVariables(input.request, token, input.rawBody), globals);
    if (input.variables) for (const [k, v] of Object.entries(input.variables)) this.scope.set(k, v);
    this.trace = input.trace ? [] : undefined;
  }

  // --- what the actions' contexts read, made when first asked for ---

  /** ctx.vars' reading functions, shared by every action of the run (they may be taken off it). */
  get vars(): Pick<Variables, 'get' | 'has' | 'all'> {
    const scope = this.scope;
    return (this.#vars ??= { get: (name) => scope.get(name), has: (name) => scope.has(name), all: () => scope.all() });
  }

  get timeLeft(): () => number {
    return (this.#timeLeft ??= () => Math.max(0, this.#deadline - this.#clock.now()));
  }

  /** The actions' abort signal: aborted when the budget is spent. */
  signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#budgetError) this.#controller.abort(this.#budgetError);
    }
    return this.#controller.signal;
  }

  /** Each plugin's services, resolved once per run (not per action: resolving them is one of the larger costs of a short action). */
  servicesOf(container: DependencyContainer): Services {
    const { pluginServices } = this.#input;
    if (!pluginServices) return (this.#actionServices ??= servicesWith(this.#input.services, { globals: this.#globalsView() }));
    const made = (this.#servicesByContainer ??= new Map());
    let found = made.get(container);
    if (!found) made.set(container, (found = servicesWith(pluginServices(container), { globals: this.#globalsView() })));
    return found;
  }

  /** Global variables as actions see them: one view, so stored ones also update the snapshot later actions read. */
  #globalsView(): GlobalVariables {
    if (this.#globals) return this.#globals;
    const { services, dryRun } = this.#input;
    const scope = this.scope;
    return (this.#globals = {
      get: (name) => services.globals.get(name),
      all: () => services.globals.all(),
      set: async (name, value) => {
        if (!dryRun) await services.globals.set(name, value);
        scope.setGlobal(name, value);
      },
      delete: async (name) => {
        const existed = dryRun ? scope.get(`global.${name}`) !== undefined : await services.globals.delete(name);
        scope.deleteGlobal(name);
        return existed;
      },
    });
  }

  line(step: ChainAction, text: string, extra?: Partial<ChainLine>): void {
    const l: ChainLine = { action: step.uuid, type: step.type, order: step.order, text };
    this.lines.push(extra ? Object.assign(l, extra) : l);
  }

  /** An action's error: into the chain's errors, or (run from another action) into that one's. */
  fail(step: ChainAction, msg: string, nested?: Nested): void {
    if (nested) return void nested.errors.push(msg);
    this.errors.push({ action: step.uuid, message: msg });
    this.line(step, `Error: ${msg}`, { error: true });
    this.scope.set(`error.${step.order}`, msg);
  }

  async runNested(step: ChainAction, type: string, parameters: Record<string, unknown>, depth: number): Promise<Record<string, string>> {
    if (this.registry.deferred) await this.registry.ready([type]);
    const inner: Nested = { depth, errors: [], set: {} };
    await this.runStep({ uuid: step.uuid, type, order: step.order, parameters }, inner);
    if (inner.errors.length) throw new Error(`${type}: ${inner.errors.join('; ')}`);
    return inner.set;
  }

  runLater(step: ChainAction, delaySeconds: number, type: string, parameters: Record<string, unknown>): void {
    const delay = Math.floor(Number(delaySeconds));
    if (!Number.isFinite(delay) || delay < 0 || delay > MAX_LATER_DELAY_S) throw new Error(`The delay must be 0 to ${MAX_LATER_DELAY_S} seconds`);
    if (!this.registry.has(type)) throw new Error(`Unknown action type "${type}"`);
    if (this.later.length >= MAX_LATER_ACTIONS) throw new Error(`A run may queue at most ${MAX_LATER_ACTIONS} actions for later`);
    this.later.push({ delay, type, parameters, from: { uuid: step.uuid, type: step.type, order: step.order } });
  }

  // --- the budget ---

  #spendBudget(): BudgetSpent {
    if (!this.#budgetError) {
      this.#budgetError = new BudgetSpent(this.#budgetMs);
      this.#controller?.abort(this.#budgetError);
      this.#rejectSpent?.(this.#budgetError);
    }
    return this.#budgetError;
  }

  /**
   * Rejects when the budget is spent. Made, with its timer, when an action first leaves a promise
   * pending: until then nothing could have run the timer (synchronous steps never yield to the
   * event loop), and every step starts with a look at the clock. The timer fires when it would
   * have, had it been set at the start (#startedAt).
   */
  #budgetSpent(): Promise<never> {
    if (!this.#spent) {
      this.#spent = new Promise<never>((_, reject) => (this.#rejectSpent = reject));
      this.#spent.catch(() => {});
      if (this.#budgetError) this.#rejectSpent!(this.#budgetError);
      else this.#timer = setTimeout(() => this.#spendBudget(), Math.max(0, this.#budgetMs - (performance.now() - this.#startedAt)));
    }
    return this.#spent;
  }

  /** Clears the budget's timer (the run is over). */
  end(): void {
    if (this.#timer) clearTimeout(this.#timer);
  }

  // --- running ---

  #caught(step: ChainAction, e: unknown, nested: Nested | undefined): void {
    const spent = this.#budgetError;
    if (spent && e === spent) {
      this.fail(step, spent.message, nested);
      this.stopped = true;
    } else {
      this.fail(step, message(e), nested);
    }
  }

  /**
   * Runs one action; returns the items to repeat the rest of the chain over, if it asked to: at
   * once when the action finished synchronously (most do), else a promise. An action run from
   * another one (`nested`, ctx.runAction) reports its errors there instead of to the chain, and
   * its repetitions are ignored.
   */
  runStep(step: ChainAction, nested?: Nested): Repeat | Promise<Repeat> {
    this.ran.add(step.uuid);
    const entry = this.registry.get(step.type);
    if (!entry) return void this.fail(step, this.registry.unavailable(step.type) ?? `Unknown action type "${step.type}"`, nested);
    if (step.unavailable) return void this.fail(step, step.unavailable, nested);
    const def = entry.definition;
    const raw = step.parameters ?? {};
    const parsed = stepParams(def, raw, this.scope.resolve);
    if (!parsed.success) return void this.fail(step, `Invalid parameter ${['parameters', ...parsed.path.map(String)].join('.')}: ${parsed.message}`, nested);
    const ctx = new StepContext(this, step, nested, parsed.data, raw, entry.container);
    let done: unknown;
    try {
      done = def.execute(ctx, parsed.data);
    } catch (e) {
      this.#caught(step, e, nested);
      ctx.live = false;
      return ctx.repeatItems;
    }
    // Only a pending promise races the budget.
    if (isThenable(done)) return this.#settle(step, nested, ctx, done);
    ctx.live = false;
    return ctx.repeatItems;
  }

  async #settle(step: ChainAction, nested: Nested | undefined, ctx: StepContext, done: PromiseLike<unknown>): Promise<Repeat> {
    try {
      await Promise.race([done, this.#budgetSpent()]);
    } catch (e) {
      this.#caught(step, e, nested);
    } finally {
      ctx.live = false;
    }
    return ctx.repeatItems;
  }

  async runFrom(start: number): Promise<void> {
    const steps = this.#steps;
    const { observe } = this.#input;
    for (let i = start; i < steps.length && !this.stopped; i++) {
      const step = steps[i]!;
      if (step.disabled) continue;
      if (this.#budgetError || this.#clock.now() >= this.#deadline) {
        this.fail(step, this.#spendBudget().message);
        this.stopped = true;
        return;
      }
      if (step.condition) {
        const passed = this.results.get(step.condition);
        const wanted = step.condition_action !== 'false';
        if (passed !== wanted) {
          this.line(step, `Skipped: condition ${step.condition} ${passed === undefined ? 'did not run' : passed ? 'passed' : 'did not pass'}`);
          continue;
        }
      }
      const errorsBefore = this.errors.length;
      const ran = this.runStep(step);
      // Waits only for an action that left a promise pending (runStep's own are native).
      const items = ran instanceof Promise ? await ran : ran;
      // Registered types only: a label per unknown type name would grow without bound.
      if (observe && this.registry.get(step.type)) observe(step.type, this.errors.length > errorsBefore);
      if (this.trace) this.trace.push({ action: step.uuid, type: step.type, order: step.order, variables: this.scope.runtimeVariables() });
      if (items) {
        for (const item of items) {
          if (this.stopped) break;
          for (const [k, v] of Object.entries(item)) this.scope.set(k, v);
          await this.runFrom(i + 1);
        }
        return;
      }
    }
  }

  result(): ChainResult {
    const lines = this.lines;
    const output: string[] = new Array(lines.length);
    for (let i = 0; i < lines.length; i++) output[i] = `[${lines[i]!.order} ${lines[i]!.type}] ${lines[i]!.text}`;
    const result: ChainResult = new RunResult(finalResponse(this.response, this.token), this.dontSave, this.stopped, output, lines, this.errors, [...this.ran], this.redactRules, this.later, this.scope);
    if (this.trace) result.trace = this.trace;
    return result;
  }
}

export async function runChain(input: ChainInput): Promise<ChainResult> {
  const { registry, services } = input;
  const budgetMs = input.budgetMs ?? DEFAULT_BUDGET_MS;
  const deadline = services.clock.now() + budgetMs;
  const steps = inOrder(input.actions)
    ? input.actions
    : [...input.actions]
        .map((a, i) => ({ a, i }))
        .sort((x, y) => x.a.order - y.a.order || x.i - y.i)
        .map((x) => x.a);
  // Deferred plugin loading: a flag check once every plugin is in.
  if (registry.deferred) await registry.ready(steps.map((s) => s.type));

  // Read once; the scope copies them only if an action stores or deletes one.
  let globalsSnapshot: Readonly<Record<string, string>> | undefined;
  if (steps.some((s) => !s.disabled)) {
    try {
      globalsSnapshot = (await services.globals.all()) ?? undefined;
    } catch (e) {
      services.logger.warn('Could not read global variables for the action chain', { error: message(e) });
    }
  }
  const run = new ChainRun(input, steps, budgetMs, deadline, globalsSnapshot);
  try {
    await run.runFrom(0);
  } catch (e) {
    // Only a bug in the runner itself gets here; still no exception out of runChain.
    services.logger.error('Action chain failed', { error: message(e), token: input.token.uuid });
    run.errors.push({ action: '', message: message(e) });
  } finally {
    run.end();
  }
  return run.result();
}

/**
 * A run's result. `variables` and `runtimeVariables` are copied from the scope when first read (a
 * capture's chain result never reads them; nothing changes the scope once the run is over: late
 * actions are no longer live). They are own enumerable accessors, as the fields are, but the same
 * two functions for every result: accessors written in an object literal were new functions and a
 * new property record each run, kept by V8 where the young-generation collections treat them as
 * live, so every run's objects were scavenged and promoted. Once read, a plain property.
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
