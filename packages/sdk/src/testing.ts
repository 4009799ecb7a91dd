// Runs one action as the first of a chain, with the chain runner the host uses (./chain/runner.ts:
// variables replaced, parameters parsed, errors captured), in-memory services and no server. For
// plugin tests, inside this repository or out of it: nothing of the host is needed.
import { container as rootContainer, type DependencyContainer } from './container.js';
import { silentLogger } from './logger.js';
import { parameterErrors, type ParameterFieldErrors } from './parameter-errors.js';
import type { CompiledRule } from './redaction.js';
import { runChain, type ActionTypes, type ChainLine } from './chain/runner.js';
import {
  openNetwork,
  type Clock,
  type Counters,
  type DatabaseQueryResult,
  type Databases,
  type GlobalVariables,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
  type Provider,
  type Providers,
  type RequestReader,
  type Services,
  type TemplateInfo,
  type Templates,
} from './services.js';
import type { AnyActionDefinition, CapturedRequest, ResponseDraft, TokenInfo } from './types.js';

export const TEST_TOKEN: TokenInfo = {
  uuid: '11111111-1111-4111-8111-111111111111',
  alias: null,
  user_id: 1,
  default_status: 200,
  default_content: '',
  default_content_type: 'text/plain',
};

/** A web capture of an empty POST, with `overrides` applied. */
export function testRequest(overrides: Partial<CapturedRequest> = {}): CapturedRequest {
  const content = overrides.content ?? '';
  return {
    uuid: '22222222-2222-4222-8222-222222222222',
    token_id: TEST_TOKEN.uuid,
    type: 'web',
    method: 'POST',
    url: `http://localhost:8084/${TEST_TOKEN.uuid}`,
    hostname: 'localhost',
    ip: '127.0.0.1',
    user_agent: 'vitest',
    content,
    headers: { 'user-agent': ['vitest'] },
    query: {},
    request: {},
    files: [],
    size: Buffer.byteLength(content),
    created_at: '2024-01-02 03:04:05',
    ...overrides,
  };
}

export interface FakeClock extends Clock {
  advance(ms: number): void;
}

/** A clock that only moves when told to; `sleep` moves it and returns at once. */
export function fakeClock(start = Date.UTC(2024, 0, 2, 3, 4, 5)): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => void (t += ms),
    sleep: async (ms, signal) => {
      if (!signal?.aborted) t += Math.max(0, ms);
    },
  };
}

export function memoryGlobals(initial: Record<string, string> = {}): GlobalVariables & { values: Map<string, string> } {
  const values = new Map(Object.entries(initial));
  return {
    values,
    get: async (name) => values.get(name) ?? null,
    set: async (name, value) => void values.set(name, value),
    all: async () => Object.fromEntries(values),
    delete: async (name) => values.delete(name),
  };
}

export function memoryCounters(): Counters {
  const counts = new Map<string, number>();
  const windows = new Map<string, { count: number; openedAt: number; until: number }>();
  return {
    hit: async (key, windowStart) => {
      const k = `${key}@${windowStart}`;
      const n = (counts.get(k) ?? 0) + 1;
      counts.set(k, n);
      return n;
    },
    hitWindow: async (key, now, periodMs) => {
      const w = windows.get(key);
      if (w && w.until > now) w.count++;
      else windows.set(key, { count: 1, openedAt: now, until: now + periodMs });
      const { count, openedAt } = windows.get(key)!;
      return { count, openedAt };
    },
  };
}

/** An HTTP client answering from a function; it records what was sent. */
export function stubHttp(answer: (req: HttpRequest) => Omit<Partial<HttpResponse>, 'body'> & { body?: Buffer | string } = () => ({})): HttpClient & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    request: async (req) => {
      sent.push(req);
      const r = answer(req);
      return { status: r.status ?? 200, headers: r.headers ?? {}, body: Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body ?? '') };
    },
  };
}

/** Providers of the test account: `id -> {type, settings, credentials}`. */
export function memoryProviders(list: Array<Omit<Provider, 'name' | 'settings'> & Partial<Pick<Provider, 'name' | 'settings'>>> = []): Providers {
  return {
    async saveCredentials(id, patch) {
      const p = list.find((x) => x.id === String(id));
      if (!p) throw new Error(`Provider ${id} not found`);
      const merged: Record<string, unknown> = { ...p.credentials };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      p.credentials = merged;
    },
    async get(id, types) {
      const p = list.find((x) => x.id === String(id));
      if (!p) throw new Error(`Provider ${id} not found`);
      const wanted = typeof types === 'string' ? [types] : types;
      if (!wanted.includes(p.type)) throw new Error(`Provider ${id} is a ${p.type} account, not ${wanted.join(' or ')}`);
      return { name: p.type, settings: {}, ...p };
    },
  };
}

/** Requests of other tokens by token UUID or alias, as the store would answer (no query filtering). */
export function memoryRequests(byToken: Record<string, CapturedRequest[]> = {}): RequestReader & { calls: Array<{ token: string; query?: string; limit: number; sorting?: string }> } {
  const calls: Array<{ token: string; query?: string; limit: number; sorting?: string }> = [];
  return {
    calls,
    async list(token, opts) {
      calls.push({ token, ...opts });
      const list = byToken[token];
      if (!list) throw new Error(`Token ${token} not found`);
      const sorted = opts.sorting === 'oldest' ? [...list].reverse() : list;
      return sorted.slice(0, opts.limit);
    },
  };
}

/**
 * Hosted databases answered by `handler` (per database id), with the calls recorded. Without a
 * handler every query rejects, as on a server without Databases configured.
 */
export function stubDatabases(
  handler?: (id: string, sql: string, params: unknown) => Partial<DatabaseQueryResult> | Promise<Partial<DatabaseQueryResult>>,
): Databases & { calls: Array<{ id: string; sql: string; params: unknown }> } {
  const calls: Array<{ id: string; sql: string; params: unknown }> = [];
  return {
    calls,
    async query(id, sql, params) {
      calls.push({ id, sql, params });
      if (!handler) throw new Error('Databases are not configured in this test (pass services.databases)');
      const r = await handler(id, sql, params);
      return { result: r.result === undefined ? [] : r.result, error: r.error ?? null, rows: r.rows ?? r.result?.length ?? 0, time: r.time ?? 0 };
    },
  };
}

/** The account's templates as given (an id or a name finds one; the oldest of a name first). */
export function memoryTemplates(templates: TemplateInfo[] = []): Templates {
  return {
    async get(idOrName) {
      const found = templates.find((t) => t.id === Number(idOrName)) ?? [...templates].sort((a, b) => a.id - b.id).find((t) => t.name === String(idOrName));
      if (!found) throw new Error(`Template ${idOrName} not found in this account`);
      return found;
    },
  };
}

export { silentLogger };
export { fetchHttpClient, openNetwork } from './services.js';

/** The root container: host services a test registers here reach every plugin's child container. */
export { rootContainer };

export function testServices(overrides: Partial<Services> = {}): Services {
  return {
    http: stubHttp(() => {
      throw new Error('no HTTP in this test (pass services.http)');
    }),
    globals: memoryGlobals(),
    counters: memoryCounters(),
    clock: fakeClock(),
    logger: silentLogger,
    net: openNetwork,
    providers: memoryProviders(),
    requests: memoryRequests(),
    databases: stubDatabases(),
    templates: memoryTemplates(),
    ...overrides,
  };
}

export interface RunActionOptions {
  request?: Partial<CapturedRequest>;
  rawBody?: Buffer;
  token?: Partial<TokenInfo>;
  /** Runtime variables set before the action. */
  vars?: Record<string, string>;
  /** Global variables of the account before the action (ignored when services.globals is given). */
  globals?: Record<string, string>;
  services?: Partial<Services>;
  budgetMs?: number;
  /** Run as a queued action (ctx.queued). */
  queued?: boolean;
  container?: DependencyContainer;
  /** The action's order (names `error.<order>`). Default 1. */
  order?: number;
  /** Other action types the chain knows, for ctx.runAction (WebhookScript's action()). */
  actions?: AnyActionDefinition[];
}

export interface RunActionResult {
  /** Runtime variables after the action (what it set, plus `vars`). */
  vars: Record<string, string>;
  /** Every variable, request ones included. */
  variables: Record<string, string>;
  /** The action's output lines, without the runner's `[order type]` prefix. */
  output: string[];
  lines: ChainLine[];
  errors: string[];
  /** The response after the action (the token's default when unchanged). */
  response: ResponseDraft;
  stopped: boolean;
  dontSave: boolean;
  /** Redaction rules the action asked for (ctx.redact), as the pipeline applies them when it stores the request. */
  redact: CompiledRule[];
  /** Global variables after the action. */
  globals: Record<string, string>;
  /** The services the action ran with (to look at stubs). */
  services: Services;
  /** Actions it asked to run later (ctx.later), as the chain hands them to the job queue. */
  later: Array<{ delay: number; type: string; parameters: Record<string, unknown> }>;
}

export type { ChainLine } from './chain/runner.js';

/** The chain's action types: `definitions` (the first is the one run), each in `container`. */
function typesOf(definitions: AnyActionDefinition[], container: DependencyContainer): ActionTypes {
  const byType = new Map(definitions.map((definition) => [definition.type, { definition, container }]));
  return { get: (type) => byType.get(type), has: (type) => byType.has(type), deferred: false, ready: async () => {}, unavailable: () => undefined };
}

export async function runAction(action: AnyActionDefinition, params: Record<string, unknown>, options: RunActionOptions = {}): Promise<RunActionResult> {
  const token = { ...TEST_TOKEN, ...options.token };
  const request = testRequest(options.request);
  const rawBody = options.rawBody ?? Buffer.from(request.content);
  const globals = options.services?.globals ?? memoryGlobals(options.globals);
  const services = testServices({ ...options.services, globals });
  const r = await runChain({
    token,
    request,
    rawBody,
    registry: typesOf([action, ...(options.actions ?? [])], options.container ?? rootContainer.createChildContainer()),
    services,
    budgetMs: options.budgetMs,
    variables: options.vars,
    actions: [{ uuid: '33333333-3333-4333-8333-333333333333', type: action.type, order: options.order ?? 1, parameters: params }],
    queued: options.queued,
  });
  return {
    vars: r.runtimeVariables,
    variables: r.variables,
    output: r.lines.filter((l) => !l.error).map((l) => l.text),
    lines: r.lines,
    errors: r.errors.map((e) => e.message),
    response: r.response ?? { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} },
    stopped: r.stopped,
    dontSave: r.dontSave,
    redact: r.redact,
    globals: await globals.all(),
    services,
    later: r.later.map(({ delay, type, parameters }) => ({ delay, type, parameters })),
  };
}

/** What validateParams throws: the message and fields of the API's 422 for the same parameters. */
export class ParameterValidationError extends Error {
  readonly status = 422;
  constructor(
    message: string,
    readonly errors: ParameterFieldErrors,
  ) {
    super(message);
  }
}

/** Validates parameters as the API does on create (throws ParameterValidationError, the API's 422). */
export function validateParams(action: AnyActionDefinition, params: unknown): Record<string, unknown> {
  const given = params ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) throw new ParameterValidationError('parameters must be an object', { parameters: ['must be an object'] });
  const problem = parameterErrors(action, given as Record<string, unknown>);
  if (problem) throw new ParameterValidationError(problem.message, problem.errors);
  return given as Record<string, unknown>;
}
