// The limits that keep a script from hanging or exhausting the process.

export interface Limits {
  /** Expressions evaluated and statements run, in all. */
  maxSteps: number;
  /** Nested function calls. */
  maxDepth: number;
  /** Characters of one string. */
  maxStringLength: number;
  /** Array items and string characters created over the whole run (characters count 1/16). */
  maxAllocation: number;
  /** Lines of echo/dump output kept. */
  maxOutputLines: number;
  /** HTTP requests (request, http, multipart, import). */
  maxHttpRequests: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 10_000_000,
  maxDepth: 200,
  maxStringLength: 5_000_000,
  maxAllocation: 20_000_000,
  maxOutputLines: 1000,
  maxHttpRequests: 100,
};

/** Nesting the parser accepts (brackets, blocks, operators), so parsing cannot overflow the stack. */
export const MAX_NESTING = 200;

/** Items of one array (a fixed cap, checked on every insert). */
export const MAX_ARRAY_ITEMS = 1_000_000;
