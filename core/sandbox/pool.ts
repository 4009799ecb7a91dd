// The main-thread side of the sandbox: a small pool of worker threads, each holding a warm QuickJS
// WASM module. Jobs queue per account until a worker is free; accounts take turns and one account
// never holds more than its share of the workers (FairQueue), so a flood of runaway scripts from
// one account delays only that account. Each run gets a deadline (the job's budget, at most
// runTimeoutMs) enforced by an interrupt inside the worker; the pool terminates (and replaces) a
// worker whose run overruns it by a grace margin, because the interrupt handler does not stop
// everything. Other workers keep serving.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FairQueue } from '@capture/sdk/fair-share';
import { SCRIPT_OUTPUT_MAX_BYTES } from '@capture/sdk/output';
import type { FromWorker, ToWorker, WorkerJob } from './protocol.js';
import type { HostCalls, HostMethod, SandboxFetchRequest, SandboxFetchResponse, SandboxJob, SandboxPool, SandboxPoolOptions, SandboxPoolStats, SandboxResult } from './types.js';

export const DEFAULT_MEMORY_BYTES = 32 * 1024 * 1024;
export const DEFAULT_STACK_BYTES = 256 * 1024;
/** How long one run may take at most, whatever budget its chain has left (30 s inline). */
export const DEFAULT_RUN_TIMEOUT_MS = 10_000;
export const DEFAULT_QUEUED_RUN_TIMEOUT_MS = 120_000;
const WORKER_STACK_MB = 8; // the QuickJS stack limit above must stay well inside the thread's stack
const WORKER_HEAP_MB = 256;
const MAX_START_FAILURES = 3;

interface Running {
  runId: number;
  account: string;
  job: SandboxJob;
  host: HostCalls;
  timeoutMs: number;
  resolve(result: SandboxResult): void;
  killTimer: NodeJS.Timeout;
  /** performance.now() when a worker took the run. */
  startedAt: number;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: Running | null;
  /** Set once the pool has decided to get rid of this worker. */
  retired: boolean;
}

interface Queued {
  job: SandboxJob;
  host: HostCalls;
  deadline: number;
  resolve(result: SandboxResult): void;
  /** Fails the job if it is still waiting when its budget is spent. */
  expiry: NodeJS.Timeout;
}

function failed(job: SandboxJob, error: string): SandboxResult {
  return { variables: { ...job.variables }, output: [], response: null, stopped: false, dontSave: false, error };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** JSON round trip: whatever a host callback returns, only plain data crosses to the worker. */
function plain(value: unknown): unknown {
  if (value === undefined) return null;
  const s = JSON.stringify(value);
  return s === undefined ? null : (JSON.parse(s) as unknown);
}

/** The request as JSON, once (a string crosses to the worker without a structured clone of the object). */
function requestJson(request: unknown): string {
  try {
    return JSON.stringify(request ?? {}) ?? '{}';
  } catch {
    return '{}';
  }
}

function headersRecord(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h || typeof h !== 'object') return out;
  if (typeof (h as { forEach?: unknown }).forEach === 'function' && !Array.isArray(h)) {
    (h as { forEach(cb: (v: unknown, k: string) => void): void }).forEach((v, k) => {
      out[k] = String(v);
    });
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, unknown>)) {
    if (v !== undefined && v !== null) out[k] = Array.isArray(v) ? v.map(String).join(', ') : String(v);
  }
  return out;
}

function fetchRequest(arg: unknown): SandboxFetchRequest {
  const r = (arg ?? {}) as Record<string, unknown>;
  return {
    url: String(r.url ?? ''),
    method: String(r.method ?? 'GET').toUpperCase(),
    headers: headersRecord(r.headers),
    body: r.body === null || r.body === undefined ? null : String(r.body),
  };
}

async function serveHostCall(host: HostCalls, method: HostMethod, args: unknown[]): Promise<unknown> {
  switch (method) {
    case 'fetch': {
      const res: SandboxFetchResponse = await host.fetch(fetchRequest(args[0]));
      return {
        status: Number(res.status),
        statusText: res.statusText ?? '',
        headers: headersRecord(res.headers),
        body: res.body === undefined || res.body === null ? '' : String(res.body),
        ...(res.url !== undefined ? { url: String(res.url) } : {}),
      };
    }
    case 'globalGet':
      return plain((await host.globalGet(String(args[0]))) ?? null);
    case 'globalSet':
      await host.globalSet(String(args[0]), String(args[1] ?? ''));
      return null;
    case 'storeGet':
      if (!host.storeGet) throw new Error('store.get() is not configured on this server');
      return plain((await host.storeGet(String(args[0]))) ?? null);
    case 'storeSet':
      if (!host.storeSet) throw new Error('store.set() is not configured on this server');
      await host.storeSet(String(args[0]), String(args[1] ?? ''));
      return null;
    case 'db': {
      if (!host.db) throw new Error('db() is not configured on this server');
      const q = (args[0] ?? {}) as Record<string, unknown>;
      return plain(await host.db({ database: String(q.database ?? ''), query: String(q.query ?? ''), params: q.params ?? undefined }));
    }
    case 'nats': {
      if (!host.nats) throw new Error("require('nats') is not available on this server");
      const call = (args[0] ?? {}) as Record<string, unknown>;
      return plain(await host.nats({ ...call, op: String(call.op) as never }));
    }
    default:
      throw new Error(`Unknown host call: ${String(method)}`);
  }
}

const nodeRequire = createRequire(import.meta.url);

/**
 * Starts one worker. Compiled (dist/) the worker is `worker.js` beside this file; when this module
 * runs from TypeScript sources (vitest, tsx) the worker is bootstrapped through tsx's loader.
 */
function startWorker(): Worker {
  const resourceLimits = { stackSizeMb: WORKER_STACK_MB, maxOldGenerationSizeMb: WORKER_HEAP_MB };
  if (import.meta.url.endsWith('.ts')) {
    // tsx's ESM register API (its `import` build sits beside the `require` one).
    const api = pathToFileURL(nodeRequire.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
    const entry = new URL('./worker.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, resourceLimits });
  }
  return new Worker(new URL('./worker.js', import.meta.url), { resourceLimits });
}

export function createSandboxPool(opts: SandboxPoolOptions = {}): SandboxPool {
  const size = Math.max(1, Math.floor(opts.size ?? 2));
  const memoryBytes = opts.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  const stackBytes = opts.stackBytes ?? DEFAULT_STACK_BYTES;
  const killGraceMs = opts.killGraceMs ?? 500;
  const maxOutputBytes = opts.maxOutputBytes ?? SCRIPT_OUTPUT_MAX_BYTES;
  const runTimeoutMs = opts.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  const queuedRunTimeoutMs = opts.queuedRunTimeoutMs ?? DEFAULT_QUEUED_RUN_TIMEOUT_MS;
  // By default an account may use half the workers: the other half stays free for everyone else.
  const maxPerAccount = opts.maxConcurrentPerAccount ?? Math.max(1, Math.floor(size / 2));
  const maxPendingHostCalls = opts.maxPendingHostCalls ?? 32;
  const interrupt = !opts.disableInterruptForTesting;
  // A worker whose WASM memory grew far beyond the default limit (a big memoryBytes job) is recycled.
  const recycleWasmBytes = 2 * memoryBytes + 64 * 1024 * 1024;

  const slots: Slot[] = [];
  const queue = new FairQueue<Queued>(maxPerAccount);
  let closed = false;
  let nextRunId = 1;
  let nextUnattributed = 1;
  let replaced = 0;
  let startFailures = 0;
  let lastStartError = '';
  const readyWaiters: Array<{ resolve(): void; reject(err: Error): void }> = [];
  const allReady = () => slots.length > 0 && slots.every((s) => s.ready && !s.retired);
  const wakeReadyWaiters = () => {
    if (!allReady()) return;
    for (const w of readyWaiters.splice(0)) w.resolve();
  };

  function spawn(): Slot {
    const slot: Slot = { worker: startWorker(), ready: false, current: null, retired: false };
    const { worker } = slot;
    worker.unref();
    worker.on('message', (msg: FromWorker) => onMessage(slot, worker, msg));
    worker.on('error', (err) => onGone(slot, worker, messageOf(err)));
    worker.on('exit', (code) => onGone(slot, worker, `exited with code ${code}`));
    return slot;
  }

  function replace(slot: Slot, reason: 'replaced' | 'crashed' | 'recycled'): void {
    const i = slots.indexOf(slot);
    if (slot.retired || i < 0) return;
    slot.retired = true;
    slot.ready = false;
    void slot.worker.terminate().catch(() => undefined);
    if (reason !== 'recycled') replaced++;
    if (closed) {
      slots.splice(i, 1);
      return;
    }
    slots[i] = spawn();
  }

  function finish(slot: Slot, result: SandboxResult): void {
    const cur = slot.current;
    if (!cur) return;
    clearTimeout(cur.killTimer);
    slot.current = null;
    queue.done(cur.account);
    slot.worker.unref();
    opts.onRun?.((performance.now() - cur.startedAt) / 1000);
    cur.resolve(result);
  }

  function onMessage(slot: Slot, worker: Worker, msg: FromWorker): void {
    if (slot.worker !== worker || slot.retired) return;
    switch (msg.type) {
      case 'ready':
        slot.ready = true;
        startFailures = 0;
        pump();
        wakeReadyWaiters();
        return;
      case 'hostCall': {
        const cur = slot.current;
        const reply = (m: ToWorker) => {
          if (slot.worker === worker && !slot.retired && slot.current?.runId === msg.runId) worker.postMessage(m);
        };
        if (!cur || cur.runId !== msg.runId) return;
        serveHostCall(cur.host, msg.method, msg.args).then(
          (value) => reply({ type: 'hostResult', runId: msg.runId, callId: msg.callId, ok: true, value }),
          (err: unknown) => reply({ type: 'hostResult', runId: msg.runId, callId: msg.callId, ok: false, error: messageOf(err) }),
        );
        return;
      }
      case 'done': {
        if (slot.current?.runId !== msg.runId) return;
        finish(slot, msg.result);
        if (msg.fatal !== undefined) replace(slot, 'crashed');
        else if (msg.wasmBytes > recycleWasmBytes) replace(slot, 'recycled');
        pump();
        return;
      }
    }
  }

  function onGone(slot: Slot, worker: Worker, reason: string): void {
    if (slot.worker !== worker || slot.retired) return;
    const cur = slot.current;
    if (cur) finish(slot, failed(cur.job, `Sandbox worker crashed: ${reason}`));
    if (!slot.ready) {
      startFailures++;
      lastStartError = reason;
    }
    if (startFailures >= MAX_START_FAILURES) {
      // The workers cannot start at all (broken install?): fail what waits instead of spinning.
      slot.retired = true;
      slots.splice(slots.indexOf(slot), 1);
      for (const q of queue.clear()) {
        clearTimeout(q.expiry);
        q.resolve(failed(q.job, `Sandbox unavailable: ${lastStartError}`));
      }
      for (const w of readyWaiters.splice(0)) w.reject(new Error(`Sandbox unavailable: ${lastStartError}`));
      return;
    }
    replace(slot, 'crashed');
    pump();
  }

  function kill(slot: Slot, runId: number): void {
    const cur = slot.current;
    if (!cur || cur.runId !== runId) return;
    finish(slot, failed(cur.job, `Script timed out after ${cur.timeoutMs} ms (its sandbox worker was stopped)`));
    replace(slot, 'replaced');
    pump();
  }

  function dispatch(slot: Slot, account: string, q: Queued, timeoutMs: number): void {
    const runId = nextRunId++;
    const job: WorkerJob = {
      script: q.job.script,
      variables: { ...q.job.variables },
      requestJson: requestJson(q.job.request),
      timeoutMs,
      memoryBytes: q.job.memoryBytes ?? memoryBytes,
      stackBytes,
      maxOutputBytes,
      maxPendingHostCalls,
      interrupt,
      hasDb: typeof q.host.db === 'function',
      hasStore: typeof q.host.storeGet === 'function' && typeof q.host.storeSet === 'function',
    };
    slot.current = {
      runId,
      account,
      job: q.job,
      host: q.host,
      timeoutMs,
      resolve: q.resolve,
      killTimer: setTimeout(() => kill(slot, runId), timeoutMs + killGraceMs),
      startedAt: performance.now(),
    };
    slot.worker.ref();
    slot.worker.postMessage({ type: 'run', runId, job } satisfies ToWorker);
  }

  function pump(): void {
    if (closed) return;
    while (slots.length < size && startFailures < MAX_START_FAILURES) slots.push(spawn());
    for (const slot of slots) {
      if (queue.waiting === 0) return;
      if (!slot.ready || slot.retired || slot.current) continue;
      let next = queue.take();
      while (next && next.item.deadline - Date.now() <= 0) {
        queue.done(next.account);
        expire(next.item);
        next = queue.take();
      }
      if (!next) return; // what waits belongs to accounts at their cap
      const { account, item } = next;
      clearTimeout(item.expiry);
      dispatch(slot, account, item, Math.min(item.job.queued ? queuedRunTimeoutMs : runTimeoutMs, item.deadline - Date.now()));
    }
  }

  function expire(q: Queued): void {
    clearTimeout(q.expiry);
    q.resolve(failed(q.job, `Script timed out after ${q.job.timeoutMs} ms (waiting for a free sandbox)`));
  }

  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    run(job: SandboxJob, host: HostCalls): Promise<SandboxResult> {
      if (closed) return Promise.reject(new Error('The sandbox pool is closed'));
      if (typeof job.script !== 'string') return Promise.reject(new TypeError('job.script must be a string'));
      const timeoutMs = Number.isFinite(job.timeoutMs) ? Math.max(0, job.timeoutMs) : 0;
      if (startFailures >= MAX_START_FAILURES) startFailures = 0; // try again with fresh workers
      // A job that names no account is a share of its own (callers outside the action chain).
      const account = job.account ?? `unattributed:${nextUnattributed++}`;
      return new Promise<SandboxResult>((resolve) => {
        const q: Queued = { job, host, deadline: Date.now() + timeoutMs, resolve, expiry: setTimeout(() => queue.remove(account, q) && expire(q), timeoutMs) };
        queue.push(account, q);
        pump();
      });
    },
    ready(): Promise<void> {
      if (closed) return Promise.reject(new Error('The sandbox pool is closed'));
      if (allReady()) return Promise.resolve();
      if (startFailures >= MAX_START_FAILURES) {
        startFailures = 0;
        pump();
      }
      return new Promise<void>((resolve, reject) => readyWaiters.push({ resolve, reject }));
    },
    stats(): SandboxPoolStats {
      return { size, busy: slots.filter((s) => s.current).length, queued: queue.waiting, replaced };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const w of readyWaiters.splice(0)) w.reject(new Error('The sandbox pool was closed'));
      for (const q of queue.clear()) {
        clearTimeout(q.expiry);
        q.resolve(failed(q.job, 'The sandbox pool was closed'));
      }
      const all = slots.splice(0);
      for (const slot of all) {
        const cur = slot.current;
        if (cur) finish(slot, failed(cur.job, 'The sandbox pool was closed'));
        slot.retired = true;
      }
      await Promise.all(all.map((s) => s.worker.terminate().catch(() => undefined)));
    },
  };
}
