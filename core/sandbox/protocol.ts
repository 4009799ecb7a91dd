// Messages between the pool (main thread) and a sandbox worker. One promise bridge: the worker
// asks for host calls with ids, the main thread answers each id once.

import type { HostMethod, SandboxResult } from './types.js';

export interface WorkerJob {
  script: string;
  variables: Record<string, string>;
  /** The captured request as JSON (parsed inside the context when the script first reads `request`). */
  requestJson: string;
  /** Remaining budget when the job is handed to the worker. */
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  /** UTF-8 bytes of output kept (SandboxPoolOptions.maxOutputBytes). */
  maxOutputBytes: number;
  maxPendingHostCalls: number;
  interrupt: boolean;
  /** Whether the host serves db() / store.get/set. */
  hasDb: boolean;
  hasStore: boolean;
}

export type ToWorker =
  { type: 'run'; runId: number; job: WorkerJob } | { type: 'hostResult'; runId: number; callId: number; ok: true; value: unknown } | { type: 'hostResult'; runId: number; callId: number; ok: false; error: string };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'hostCall'; runId: number; callId: number; method: HostMethod; args: unknown[] }
  /** `fatal`: the worker's WASM module can no longer be trusted; the pool replaces the worker. */
  | { type: 'done'; runId: number; result: SandboxResult; fatal?: string; wasmBytes: number };
