import type { InjectionToken } from 'tsyringe';
// Public types of the JavaScript sandbox (the QuickJS worker pool used by the `javascript` action).

/** An outgoing HTTP request made by a script (fetch/axios). The caller applies the outbound policy. */
export interface SandboxFetchRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface SandboxFetchResponse {
  status: number;
  statusText?: string;
  headers: Record<string, string>;
  body: string;
  /** Final URL after redirects, when known. */
  url?: string;
}

/** A query sent by `db(database_id)(query, params)` inside a script. */
export interface SandboxDbQuery {
  database: string;
  query: string;
  params?: unknown;
}

/** What `db(...)` resolves to, in the webhook.site shape. */
export interface SandboxDbResult {
  /** Null when the query failed (`error` says why). */
  result: unknown[] | null;
  error: string | null;
  rows: number;
  time: number;
}

/**
 * One call of a script's `require('nats')` client, served on the host: `connect` (servers,
 * credentials; answers `{id, server}`), `publish`/`request` (payload base64 in `data`),
 * `subscribe` (answers a subscription id), `next` (the subscription's next message, null once it
 * ended), `unsubscribe`, `flush` and `close`. Connections and subscriptions last at most the run.
 */
export interface SandboxNatsCall {
  op: 'connect' | 'publish' | 'request' | 'subscribe' | 'next' | 'unsubscribe' | 'flush' | 'close';
  [field: string]: unknown;
}

/**
 * Async callbacks the main thread serves for a running script. Every value crossing this boundary
 * must be JSON-serialisable. A callback that throws rejects the promise inside the script with the
 * error's message.
 */
export interface HostCalls {
  fetch(req: SandboxFetchRequest): Promise<SandboxFetchResponse>;
  /** A Global Variable; resolves to null when it does not exist. */
  globalGet(name: string): Promise<string | null>;
  /** Stores (creates or overwrites) a Global Variable. */
  globalSet(name: string, value: string): Promise<void>;
  /** A per-token key-value store (exposed as `store.get`/`store.set`); optional. */
  storeGet?(name: string): Promise<string | null>;
  storeSet?(name: string, value: string): Promise<void>;
  /** Database queries; when omitted, `db()` rejects with a "not configured" error. */
  db?(query: SandboxDbQuery): Promise<SandboxDbResult>;
  /** The `nats` module's client; when omitted, its calls reject with a "not available" error. */
  nats?(call: SandboxNatsCall): Promise<unknown>;
}

export type HostMethod = 'fetch' | 'globalGet' | 'globalSet' | 'storeGet' | 'storeSet' | 'db' | 'nats';

export interface SandboxJob {
  script: string;
  /** Variables visible to the script (`get`, `variables`). */
  variables: Record<string, string>;
  /** The captured request as the API shows it; exposed to the script as `request`. */
  request: object;
  /**
   * Time budget in milliseconds, counted from the moment `run` is called (queueing included). The
   * run itself is also limited by the pool's runTimeoutMs.
   */
  timeoutMs: number;
  /**
   * Whose fair share of the workers the run counts against (`accountOf(token)`). A job without one
   * is not limited per account.
   */
  account?: string;
  /** Memory limit of the script's runtime; defaults to the pool's. */
  memoryBytes?: number;
}

export type SandboxResponseHeaders = string[] | Record<string, string>;

export interface SandboxResponse {
  content?: string;
  status?: number;
  headers?: SandboxResponseHeaders;
}

export interface SandboxResult {
  /** The final variables (input variables plus every `set`). */
  variables: Record<string, string>;
  /** Lines logged with console.log/echo (and friends). */
  output: string[];
  /** Set by respond()/set_response(); null when the script did not touch the response. */
  response: SandboxResponse | null;
  /** stop() or respond() was called: later actions should not run. */
  stopped: boolean;
  /** dont_save() was called. */
  dontSave: boolean;
  /** Why the script failed (exception, timeout, memory, ...), or null. */
  error: string | null;
}

export interface SandboxPoolOptions {
  /** Number of worker threads (default 2). */
  size?: number;
  /** Default memory limit per script run (default 32 MiB). */
  memoryBytes?: number;
  /** QuickJS max stack size per run (default 256 KiB). */
  stackBytes?: number;
  /** How long past its deadline a run may go before its worker is terminated (default 500 ms). */
  killGraceMs?: number;
  /** Cap on the UTF-8 bytes of output kept per run (default SCRIPT_OUTPUT_MAX_BYTES, 1 MiB). */
  maxOutputBytes?: number;
  /** Longest a run may take once it has a worker, whatever its job's budget (default 10 s). */
  runTimeoutMs?: number;
  /** Runs of one account at the same time (default: half the workers, at least 1). */
  maxConcurrentPerAccount?: number;
  /** Cap on host calls in flight per run (default 32). */
  maxPendingHostCalls?: number;
  /** Testing only: disables the QuickJS interrupt handler so that only the hard kill can stop a run. */
  disableInterruptForTesting?: boolean;
  /** Told how long each run held its worker, in seconds (metrics). */
  onRun?: (seconds: number) => void;
}

export interface SandboxPoolStats {
  size: number;
  busy: number;
  queued: number;
  /** Workers terminated because a run overran its deadline (or crashed) and were replaced. */
  replaced: number;
}

export interface SandboxPool {
  run(job: SandboxJob, host: HostCalls): Promise<SandboxResult>;
  /** Resolves once every worker has its WASM module loaded (runs do not need to wait for this). */
  ready(): Promise<void>;
  stats(): SandboxPoolStats;
  close(): Promise<void>;
}

/**
 * Injection token of the process's sandbox pool. The action runtime registers one; the `javascript`
 * plugin resolves it from its container.
 */
export const SANDBOX: InjectionToken<SandboxPool> = Symbol.for('capture.sandbox.Pool');
