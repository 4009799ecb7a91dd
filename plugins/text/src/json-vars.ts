// Turns a JSON document into one variable per leaf: keys and array indices joined by dots.
import { checkParseLimits } from '@capture/sdk/parse-limits';

export const MAX_JSON_VARIABLES = 10_000;

export function leafText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `set(name, value)` for every leaf under `prefix`; empty objects and arrays count as leaves. */
export function flattenJson(value: unknown, prefix: string, set: (name: string, value: string) => void): number {
  let count = 0;
  const walk = (v: unknown, name: string) => {
    if (count >= MAX_JSON_VARIABLES) return;
    if (v !== null && typeof v === 'object') {
      // Keys once, no entry pairs: this runs for every value of every document (an array's keys are its indices).
      const keys = Object.keys(v);
      if (keys.length > 0) {
        for (const k of keys) walk((v as Record<string, unknown>)[k], `${name}.${k}`);
        return;
      }
    }
    set(name, leafText(v));
    count++;
  };
  walk(value, prefix);
  return count;
}

/** `.store.name`, `store.name` and `$.store.name` all mean the same query. */
export function normaliseJsonPath(path: string): string {
  const p = path.trim();
  if (p.startsWith('$')) return p;
  if (p.startsWith('.') || p.startsWith('[')) return '$' + p;
  return '$.' + p;
}

/**
 * The document, measured first: flattening, JSONPath and JSON.stringify recurse per level. Its size
 * is bounded where it came from (a captured body by MAX_BODY_BYTES).
 */
export function parseJson(source: string, what = 'The source'): unknown {
  checkParseLimits(source, 'json', { what, maxBytes: Infinity });
  try {
    return JSON.parse(source);
  } catch (e) {
    throw new Error(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}
