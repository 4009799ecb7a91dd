// What the actions module provides (ACTIONS): runs steps on a capture. Types only, so the key
// (core/service-keys.ts) and the HTTP layer name it without importing the module.
import type { CapturedResponse } from '../capture/pipeline.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import type { Step } from '../workflows/document.js';
import type { WorkflowService } from '../workflows/service.js';
import type { ActionRegistry } from './registry.js';
import type { ChainResult } from '@capture/sdk/runner';

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
