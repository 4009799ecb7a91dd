// Finding the operation for a method and a path: path templates (`/pets/{petId}`) are matched
// segment by segment, literal segments winning over parameters, and each path parameter must fit
// its schema's type (`/pets/abc` does not match `{petId}` of type integer).
import { resolveRef, type MockSpec, type Operation, type Schema } from './spec.js';

export type Match = { kind: 'found'; operation: Operation; params: Record<string, string> } | { kind: 'method_not_allowed'; template: string; allow: string[] } | { kind: 'not_found' };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Compiled {
  names: string[];
  re: RegExp;
  /** Per segment: 2 for literal, 1 for partly literal, 0 for a bare parameter (higher wins). */
  rank: number[];
}

const compiledCache = new WeakMap<object, Compiled>();

function compile(template: string, key: object): Compiled {
  const hit = compiledCache.get(key);
  if (hit) return hit;
  const names: string[] = [];
  const rank: number[] = [];
  const segments = normalisePath(template).split('/').slice(1);
  const source = segments
    .map((seg) => {
      rank.push(/^\{[^}]+\}$/.test(seg) ? 0 : seg.includes('{') ? 1 : 2);
      return seg
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const m = /^\{([^}]+)\}$/.exec(part);
          if (!m) return escape(part);
          names.push(m[1]);
          return '([^/]+)';
        })
        .join('');
    })
    .join('/');
  const compiled = { names, re: new RegExp(`^/${source}$`), rank };
  compiledCache.set(key, compiled);
  return compiled;
}

/** Drops the scheme and host, the query and fragment, duplicate and trailing slashes. */
export function normalisePath(path: string): string {
  let p = path.trim().replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  p = p.split(/[?#]/)[0];
  p = ('/' + p).replace(/\/{2,}/g, '/');
  return p.length > 1 ? p.replace(/\/$/, '') : p;
}

function typeOf(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = resolveRef(root, s.$ref) ?? {};
  if (Array.isArray(s.allOf)) for (const part of s.allOf) s = { ...typeOf(part ?? {}, root), ...s, allOf: undefined };
  return s;
}

/** Whether a path parameter's text fits its schema (type, enum, bounds for numbers). */
export function fitsSchema(value: string, schema: Schema, root: Schema): boolean {
  const s = typeOf(schema, root);
  if (Array.isArray(s.oneOf ?? s.anyOf)) return (s.oneOf ?? s.anyOf).some((x: Schema) => fitsSchema(value, x ?? {}, root));
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => String(e) === value)) return false;
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (!types.length) return true;
  return types.some((type) => {
    if (type === 'integer' || type === 'number') {
      if (!(type === 'integer' ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/).test(value)) return false;
      const n = Number(value);
      return !(typeof s.minimum === 'number' && n < s.minimum) && !(typeof s.maximum === 'number' && n > s.maximum);
    }
    if (type === 'boolean') return value === 'true' || value === 'false';
    if (type === 'string') {
      if (s.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return false;
      return !(typeof s.minLength === 'number' && value.length < s.minLength) && !(typeof s.maxLength === 'number' && value.length > s.maxLength);
    }
    return type !== 'null';
  });
}

function stripBase(path: string, basePaths: string[]): string[] {
  const out: string[] = [];
  for (const base of basePaths) {
    if (path === base) out.push('/');
    else if (path.startsWith(base + '/')) out.push(path.slice(base.length));
  }
  out.push(path);
  return [...new Set(out)];
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const byRank = (a: Compiled, b: Compiled) => {
  for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
    const d = (b.rank[i] ?? 0) - (a.rank[i] ?? 0);
    if (d) return d;
  }
  return 0;
};

/**
 * The operation for `method` on `path` (with or without one of the spec's server base paths).
 * HEAD falls back to GET. A path that matches with another method gives the allowed methods.
 */
export function matchOperation(spec: MockSpec, method: string, path: string): Match {
  const m = method.toUpperCase();
  const candidates = spec.paths.map((item) => ({ item, c: compile(item.template, item) })).sort((a, b) => byRank(a.c, b.c));
  let notAllowed: Match | undefined;
  for (const p of stripBase(normalisePath(path), spec.basePaths)) {
    for (const { item, c } of candidates) {
      const hit = c.re.exec(p);
      if (!hit) continue;
      const values = Object.fromEntries(c.names.map((name, i) => [name, decode(hit[i + 1])]));
      const fits = (op: Operation) => Object.entries(values).every(([name, v]) => fitsSchema(v, op.pathParams[name] ?? {}, spec.root));
      const operation = item.operations[m] ?? (m === 'HEAD' ? item.operations.GET : undefined);
      if (operation && fits(operation)) return { kind: 'found', operation, params: values };
      const other = Object.values(item.operations)[0];
      if (!operation && other && fits(other)) notAllowed ??= { kind: 'method_not_allowed', template: item.template, allow: Object.keys(item.operations).sort() };
    }
  }
  return notAllowed ?? { kind: 'not_found' };
}
