// The QuickJS worker pool behind the `javascript` action. See pool.ts (main thread), worker.ts and
// engine.ts (inside a worker), prelude.ts (the script-facing API), modules.ts (require allow-list)
// and vendor.ts (bundles generated for libraries that ship no single-file build).

/** The injection token of the pool (defined by the SDK, which plugins import). */
export { SANDBOX as SANDBOX_POOL } from '@capture/sdk';

export { createSandboxPool, DEFAULT_MEMORY_BYTES, DEFAULT_RUN_TIMEOUT_MS, DEFAULT_STACK_BYTES } from './pool.js';
export { allowedModules } from './modules.js';
export type {
  HostCalls,
  HostMethod,
  SandboxDbQuery,
  SandboxDbResult,
  SandboxFetchRequest,
  SandboxFetchResponse,
  SandboxJob,
  SandboxNatsCall,
  SandboxPool,
  SandboxPoolOptions,
  SandboxPoolStats,
  SandboxResponse,
  SandboxResponseHeaders,
  SandboxResult,
} from './types.js';
