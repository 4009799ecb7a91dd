// User-supplied regular expressions run on a V8 watchdog: a catastrophic-backtracking pattern on
// a hostile body would otherwise block the event loop for every capture in the process.
import vm from 'node:vm';

const sandbox = vm.createContext(Object.create(null));
const exec = new vm.Script('re.exec(input)');
const replace = new vm.Script('input.replace(re, replacement)');
const matchAll = new vm.Script('Array.from(input.matchAll(re), (m) => m)');

export const REGEX_TIMEOUT_MS = 1000;

export class RegexTimeout extends Error {
  constructor() {
    super(`The regular expression took longer than ${REGEX_TIMEOUT_MS} ms and was stopped`);
  }
}

function run<T>(script: vm.Script, globals: Record<string, unknown>, timeoutMs: number): T {
  Object.assign(sandbox, globals);
  try {
    return script.runInContext(sandbox, { timeout: Math.max(1, Math.floor(Math.min(timeoutMs, REGEX_TIMEOUT_MS))) }) as T;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new RegexTimeout();
    throw e;
  } finally {
    for (const k of Object.keys(globals)) delete (sandbox as Record<string, unknown>)[k];
  }
}

/**
 * Parses `/pattern/flags` (the editor's notation) or a bare pattern. Flags JavaScript lacks
 * (PCRE's `x`, `U`, `D`...) are dropped.
 */
export function parseRegex(source: string, extraFlags = ''): RegExp {
  const m = /^\/([\s\S]*)\/([a-zA-Z]*)$/.exec(source);
  const pattern = m ? m[1] : source;
  const flags = new Set([...(m ? m[2] : ''), ...extraFlags].filter((f) => 'imsu'.includes(f) || 'gdy'.includes(f)));
  return new RegExp(pattern, [...flags].join(''));
}

export function regexExec(re: RegExp, input: string, timeoutMs = REGEX_TIMEOUT_MS): RegExpExecArray | null {
  re.lastIndex = 0;
  return run(exec, { re, input }, timeoutMs);
}

export function regexTest(re: RegExp, input: string, timeoutMs = REGEX_TIMEOUT_MS): boolean {
  return regexExec(re, input, timeoutMs) !== null;
}

/** All matches; `re` gets the `g` flag if it lacks it. */
export function regexMatchAll(re: RegExp, input: string, timeoutMs = REGEX_TIMEOUT_MS): RegExpExecArray[] {
  const global = re.global ? re : new RegExp(re.source, re.flags + 'g');
  return run(matchAll, { re: global, input }, timeoutMs);
}

/** `replacement` as String.prototype.replace takes it: a pattern string or a function of the match. */
export function regexReplace(re: RegExp, input: string, replacement: string | ((match: string, ...rest: unknown[]) => string), timeoutMs = REGEX_TIMEOUT_MS): string {
  return run(replace, { re, input, replacement }, timeoutMs);
}
