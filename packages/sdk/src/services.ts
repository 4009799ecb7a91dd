// The services an action may use. They are interfaces only: core supplies the real
// implementations (the outbound-policy HTTP client, the store's counters and global variables)
// and tests supply the in-memory ones from ./testing.ts. Plugins never import core internals.
import type { InjectionToken } from 'tsyringe';
import type { Logger } from './logger.js';

export type { Logger, LogLevel } from './logger.js';
export { consoleLogger } from './logger.js';
import type { CapturedRequest } from './request.js';

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Redirects followed (each hop checked against the policy). Default 5; 0 returns the 3xx itself. */
  maxRedirects?: number;
  /** Bytes of response body kept; the rest is dropped and `truncated` set. Default 10 MiB. */
  maxBodyBytes?: number;
  /** Accept any TLS certificate (an action's "skip SSL verification"). */
  insecureTls?: boolean;
}

export interface HttpResponse {
  status: number;
  /** Header names are lower-case; repeated headers are joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered, after redirects (when the client knows it). */
  url?: string;
  /** True when the body was cut at maxBodyBytes. */
  truncated?: boolean;
}

/** Outgoing HTTP. Core's implementation enforces the outbound policy on the resolved address. */
export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
  /**
   * Requests over one kept-alive connection per origin, for authentication bound to the connection
   * (NTLM); close() ends it. Core's client has it; a client without it cannot do NTLM.
   */
  session?(): HttpSession;
}

export interface HttpSession {
  request(req: HttpRequest): Promise<HttpResponse>;
  close(): void;
}

/** The account's permanent variables (the Global Variables API). */
export interface GlobalVariables {
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  all(): Promise<Record<string, string>>;
  /** Removes the variable; resolves false when there was none. */
  delete(name: string): Promise<boolean>;
}

/** Counters shared by every process on the store (the store's CounterRepo). */
export interface Counters {
  /** Adds one to `key` in the window starting at `windowStart` (epoch ms); returns the new count. */
  hit(key: string, windowStart: number, ttlMs: number): Promise<number>;
  /**
   * Adds one to `key` in its window that opened at the first hit and lasts `periodMs` (a hit at or
   * after its end opens a new one); returns the new count and when the window opened (epoch ms).
   */
  hitWindow(key: string, now: number, periodMs: number): Promise<{ count: number; openedAt: number }>;
}

export interface Clock {
  now(): number;
  /** Waits `ms`, or less when the signal aborts (resolves either way). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Outgoing connections that are not HTTP (databases, SSH, FTP, SMTP, message brokers). Connect to
 * the address `resolve` returns, never to the name again, so the outbound policy that checked the
 * address is the one that holds (no DNS rebinding); pass the name as TLS `servername`.
 */
export interface Network {
  /** An address of `host` the outbound policy allows; rejects with a message naming the rule otherwise. */
  resolve(host: string): Promise<{ address: string; family: 4 | 6 }>;
}

/** A connected account (Providers API): settings are shown to the user, credentials never are. */
export interface Provider {
  id: string;
  type: string;
  name: string;
  settings: Record<string, unknown>;
  /** Decrypted for the action that uses them; never log or output them. */
  credentials: Record<string, unknown>;
}

/** The chain's account's providers. */
export interface Providers {
  /** The provider with this id, of one of `types`; rejects with a clear message when missing or of another type. */
  get(id: string | number, types: string | readonly string[]): Promise<Provider>;
  /**
   * Merges `patch` into the provider's stored credentials (null removes a field), e.g. an OAuth
   * access token renewed with the refresh token, so every process and later run uses it.
   */
  saveCredentials(id: string | number, patch: Record<string, unknown>): Promise<void>;
}

/** Captured requests of other tokens, for actions that read them (webhook_get_requests). */
export interface RequestReader {
  /**
   * Requests of `token` (UUID, alias or capture URL), newest first unless `sorting` is `oldest`,
   * filtered by `query` (the search language). Only tokens of the chain's account that share the
   * chain token's group (or are in no group) can be read; others reject.
   */
  list(token: string, opts: { query?: string; limit: number; sorting?: 'newest' | 'oldest' }): Promise<CapturedRequest[]>;
}

/** What a query on a hosted database answers (the Databases API's shape, plus `rows`). */
export interface DatabaseQueryResult {
  /** The rows (at most 1000), `[]` for a statement that returns none, null on error. */
  result: Array<Record<string, unknown>> | null;
  /** The database's error message, or null. */
  error: string | null;
  /** Rows returned or affected. */
  rows: number;
  /** Execution time in milliseconds. */
  time: number;
}

/** The chain's account's hosted databases (the Databases API; `db()` of the JavaScript action). */
export interface Databases {
  /**
   * Runs one statement on the account's database `id` (its id or name) with `:name` or `?`
   * parameters (`params` a map or a list). SQL errors resolve with `error` set; a missing
   * database, an account-less token or an unconfigured server reject.
   */
  query(id: string, sql: string, params?: unknown): Promise<DatabaseQueryResult>;
}

/** One of the account's action templates (the Templates API) as an action reads it. */
export interface TemplateInfo {
  id: number;
  name: string;
  variables: Array<{ name: string; value: string }>;
  /** In order; secret parameters show as the API shows them (`********`), never their value. */
  actions: Array<{ uuid: string; type: string; name: string | null; disabled: boolean; parameters: Record<string, unknown> }>;
}

/** The chain's account's action templates, read-only. */
export interface Templates {
  /**
   * The template with this id, or else this name (the oldest of that name). Rejects when the
   * account has none such, or the chain's token belongs to no account.
   */
  get(idOrName: string | number): Promise<TemplateInfo>;
}

/** What every action gets through `ctx.services`. */
export interface Services {
  http: HttpClient;
  globals: GlobalVariables;
  counters: Counters;
  clock: Clock;
  logger: Logger;
  net: Network;
  providers: Providers;
  requests: RequestReader;
  databases: Databases;
  templates: Templates;
}

/** Whose chain runs: account-bound services are scoped to this token's account. */
export interface RunOwner {
  /** The token's UUID. */
  tokenId: string;
  /** The owning user, null for an anonymous token. */
  userId: number | null;
  /** The token's group, null when it is in none. */
  groupId: number | null;
}

/** An account-bound service: the container holds this factory, a run gets its account's view. */
export interface PerAccount<T> {
  forAccount(owner: RunOwner): T;
}

// Explicit injection tokens: esbuild (vitest, tsx) emits no decorator metadata, so tsyringe cannot
// infer constructor parameter types; plugins resolve services by these symbols instead.
export const HTTP_CLIENT: InjectionToken<HttpClient> = Symbol.for('capture.sdk.HttpClient');
export const GLOBAL_VARIABLES: InjectionToken<PerAccount<GlobalVariables>> = Symbol.for('capture.sdk.GlobalVariables');
export const PROVIDERS: InjectionToken<PerAccount<Providers>> = Symbol.for('capture.sdk.Providers');
export const DATABASES: InjectionToken<PerAccount<Databases>> = Symbol.for('capture.sdk.Databases');
export const REQUESTS: InjectionToken<PerAccount<RequestReader>> = Symbol.for('capture.sdk.RequestReader');
export const TEMPLATES: InjectionToken<PerAccount<Templates>> = Symbol.for('capture.sdk.Templates');
/**
 * What `ctx.services` is made of: core registers a factory that resolves each service above from
 * the container it is resolved in, so a service a plugin registers in its own container is the one
 * its actions get.
 */
export const SERVICES: InjectionToken<PerAccount<Services>> = Symbol.for('capture.sdk.Services');
export const COUNTERS: InjectionToken<Counters> = Symbol.for('capture.sdk.Counters');
export const CLOCK: InjectionToken<Clock> = Symbol.for('capture.sdk.Clock');
export const LOGGER: InjectionToken<Logger> = Symbol.for('capture.sdk.Logger');
export const NETWORK: InjectionToken<Network> = Symbol.for('capture.sdk.Network');

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/**
 * A plain fetch-based client with no outbound policy. For tests and tools only: the server
 * registers core's policy-enforcing client under HTTP_CLIENT.
 */
export const fetchHttpClient: HttpClient = {
  async request({ method, url, headers, body, timeoutMs, signal, maxRedirects }) {
    const signals = [signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => !!s);
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined || method === 'GET' || method === 'HEAD' ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
      redirect: maxRedirects === 0 ? 'manual' : 'follow',
    });
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => (out[name] = value));
    return { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()), url: res.url || url };
  },
};

/** Resolves with the system resolver and allows every address. For tests and tools only. */
export const openNetwork: Network = {
  async resolve(host) {
    const { lookup } = await import('node:dns/promises');
    const r = await lookup(host.replace(/^\[|\]$/g, ''));
    return { address: r.address, family: r.family === 6 ? 6 : 4 };
  },
};
