// The limits that keep a script from hanging or exhausting the process.
import { SCRIPT_OUTPUT_MAX_BYTES, SCRIPT_OUTPUT_MAX_LINE_BYTES } from '@capture/sdk/output';

export interface Limits {
  /** Expressions evaluated and statements run, in all. */
  maxSteps: number;
  /** Milliseconds a run may hold the event loop in all (waiting for HTTP or storage not counted). */
  maxRunMs: number;
  /** Nested function calls. */
  maxDepth: number;
  /** Characters of one string. */
  maxStringLength: number;
  /** Array items and string characters created over the whole run (characters count 1/16). */
  maxAllocation: number;
  /** Lines of echo/dump output kept. */
  maxOutputLines: number;
  /** UTF-8 bytes of output kept, in all and per line. */
  maxOutputBytes: number;
  maxOutputLineBytes: number;
  /** HTTP requests (request, http, multipart, import). */
  maxHttpRequests: number;
  /** Runs of one account at the same time; more wait their turn (see FairQueue). */
  maxRunsPerAccount: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 10_000_000,
  maxRunMs: 5_000,
  maxDepth: 200,
  maxStringLength: 5_000_000,
  maxAllocation: 20_000_000,
  maxOutputLines: 1000,
  maxOutputBytes: SCRIPT_OUTPUT_MAX_BYTES,
  maxOutputLineBytes: SCRIPT_OUTPUT_MAX_LINE_BYTES,
  maxHttpRequests: 100,
  maxRunsPerAccount: 4,
};

/** Nesting the parser accepts (brackets, blocks, operators), so parsing cannot overflow the stack. */
export const MAX_NESTING = 200;

/** Items of one array (a fixed cap, checked on every insert). */
export const MAX_ARRAY_ITEMS = 1_000_000;
