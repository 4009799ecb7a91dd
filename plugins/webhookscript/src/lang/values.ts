// The values of the language: null, bool, number, string, regex, array (an ordered PHP-style map
// with integer and string keys, shared by reference) and function.
import { WsLimitError, WsRuntimeError, fail } from './errors.js';
import type { FuncNode } from './ast.js';
import { MAX_ARRAY_ITEMS } from './limits.js';
import { compilePattern } from './regex.js';

export type Key = number | string;
export type Value = null | boolean | number | string | WsArray | WsRegex | WsFunction;
export type TypeName = 'null' | 'bool' | 'number' | 'string' | 'regex' | 'array' | 'function';

export class WsArray {
  readonly map = new Map<Key, Value>();
  private next = 0;

  static list(values: Iterable<Value>): WsArray {
    const a = new WsArray();
    for (const v of values) a.push(v);
    return a;
  }

  static entries(entries: Iterable<readonly [Key | Value, Value]>): WsArray {
    const a = new WsArray();
    for (const [k, v] of entries) a.set(normKey(k), v);
    return a;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: Key): Value | undefined {
    return this.map.get(key);
  }

  has(key: Key): boolean {
    return this.map.has(key);
  }

  set(key: Key, value: Value): void {
    if (!this.map.has(key) && this.map.size >= MAX_ARRAY_ITEMS) {
      throw new WsLimitError(`An array may hold at most ${MAX_ARRAY_ITEMS} items`);
    }
    this.map.set(key, value);
    if (typeof key === 'number' && key >= this.next) this.next = Math.trunc(key) + 1;
  }

  push(value: Value): void {
    this.set(this.next, value);
  }

  delete(key: Key): boolean {
    return this.map.delete(key);
  }

  keys(): Key[] {
    return [...this.map.keys()];
  }

  values(): Value[] {
    return [...this.map.values()];
  }

  /** True when the keys are 0..n-1 in order (a JSON array). */
  isList(): boolean {
    let i = 0;
    for (const k of this.map.keys()) if (k !== i++) return false;
    return true;
  }

  copy(): WsArray {
    const a = new WsArray();
    for (const [k, v] of this.map) a.set(k, v);
    return a;
  }
}

export class WsRegex {
  readonly re: RegExp;
  /** `source` is the pattern as written, in PCRE syntax. */
  constructor(
    readonly source: string,
    readonly flags = '',
  ) {
    this.re = compilePattern(source, flags);
  }
}

export type NativeFn = (call: CallInfo, args: Value[]) => Value | Promise<Value>;

/** What a library function gets besides its arguments. */
export interface CallInfo {
  /** The function's name as called (for messages). */
  name: string;
  /** Calls a script or library function (callbacks of array_map...). */
  invoke(fn: WsFunction, args: Value[]): Promise<Value>;
  /** Parses and runs code in the caller's scope (exec, import); gives its `return` or last value. */
  run(code: string): Promise<Value>;
}

export class WsFunction {
  constructor(
    readonly name: string,
    readonly node: FuncNode | null,
    readonly closure: Scope | null,
    readonly native: NativeFn | null,
  ) {}

  get arity(): number {
    return this.node ? this.node.params.length : -1;
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Characters (code points) of a string, counted without splitting it (which costs far more on long strings). */
export function charCount(s: string): number {
  if (!SURROGATE.test(s)) return s.length; // one UTF-16 unit per character (cheap to tell for Latin-1 strings)
  let pairs = 0;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return s.length - pairs;
}

/** The character (code point) at an index, negative from the end; null past either end. */
export function charAt(s: string, index: number): string | null {
  if (!SURROGATE.test(s)) {
    const i = index < 0 ? s.length + index : index;
    return i >= 0 && i < s.length ? s[i]! : null;
  }
  let left = index < 0 ? charCount(s) + index : index;
  if (left < 0) return null;
  for (const ch of s) if (left-- === 0) return ch;
  return null;
}

export function typeName(v: Value): TypeName {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
  }
  if (v instanceof WsArray) return 'array';
  if (v instanceof WsRegex) return 'regex';
  return 'function';
}

/** PHP-style key normalisation: integral numbers and canonical integer strings become integers. */
export function normKey(k: Key | Value): Key {
  if (typeof k === 'number') {
    if (!Number.isFinite(k)) fail(`Cannot use ${numberText(k)} as an array key`);
    return Math.trunc(k) || 0;
  }
  if (typeof k === 'string') return /^(0|-?[1-9][0-9]{0,15})$/.test(k) && Number.isSafeInteger(Number(k)) ? Number(k) : k;
  if (typeof k === 'boolean') return k ? 1 : 0;
  if (k === null) return '';
  return fail(`Cannot use ${typeName(k)} as an array key`);
}

export function numberText(n: number): string {
  if (Number.isNaN(n)) return 'NAN';
  if (!Number.isFinite(n)) return n > 0 ? 'INF' : '-INF';
  if (Object.is(n, -0)) return '0';
  return String(n);
}

export function isTruthy(v: Value): boolean {
  if (v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (typeof v === 'string') return v !== '';
  if (v instanceof WsArray) return v.size > 0;
  return true;
}

const MAX_NEST = 100;

function guard(seen: Set<WsArray>, a: WsArray, depth: number): void {
  if (seen.has(a)) fail('The array contains itself');
  if (depth > MAX_NEST) throw new WsLimitError(`Arrays nested deeper than ${MAX_NEST} levels`);
}

/**
 * Text of a value where a string is expected (echo, `{}` in format, set()): strings as they are,
 * numbers and bools as written, null as "", arrays as JSON.
 */
export function toText(v: Value): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return '';
  if (v instanceof WsArray) return jsonEncode(v, false);
  if (v instanceof WsRegex) return v.source;
  return `<function ${v.name}>`;
}

/** The dump() notation: `[0: "a", "k": true]`, strings quoted. */
export function repr(v: Value, seen = new Set<WsArray>(), depth = 0): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof WsRegex) return `r${quote(v.source)}`;
  if (v instanceof WsFunction) return `<function ${v.name}>`;
  guard(seen, v, depth);
  seen.add(v);
  const parts: string[] = [];
  for (const [k, item] of v.map) parts.push(`${typeof k === 'string' ? quote(k) : k}: ${repr(item, seen, depth + 1)}`);
  seen.delete(v);
  return `[${parts.join(', ')}]`;
}

function quote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t') + '"';
}

/** JSON of a value: lists as JSON arrays, other arrays as objects; pretty prints with 4 spaces like PHP. */
export function jsonEncode(v: Value, pretty: boolean, maxLength = Infinity): string {
  const out: string[] = [];
  let length = 0;
  const emit = (s: string) => {
    length += s.length;
    if (length > maxLength) throw new WsLimitError(`A string may be at most ${maxLength.toLocaleString('en')} characters long`);
    out.push(s);
  };
  const seen = new Set<WsArray>();
  const walk = (x: Value, indent: string, depth: number): void => {
    if (x === null || x instanceof WsFunction) return emit('null');
    if (typeof x === 'string') return emit(JSON.stringify(x));
    if (typeof x === 'number') return emit(Number.isFinite(x) ? numberText(x) : '0');
    if (typeof x === 'boolean') return emit(x ? 'true' : 'false');
    if (x instanceof WsRegex) return emit(JSON.stringify(x.source));
    guard(seen, x, depth);
    if (x.size === 0) return emit('[]');
    const list = x.isList();
    seen.add(x);
    const inner = indent + '    ';
    emit(list ? '[' : '{');
    let first = true;
    for (const [k, item] of x.map) {
      if (!first) emit(',');
      first = false;
      if (pretty) emit('\n' + inner);
      if (!list) emit(JSON.stringify(String(k)) + (pretty ? ': ' : ':'));
      walk(item, inner, depth + 1);
    }
    if (pretty) emit('\n' + indent);
    emit(list ? ']' : '}');
    seen.delete(x);
  };
  walk(v, '', 0);
  return out.join('');
}

/** A JSON value as a script value: objects and arrays become arrays. */
export function fromJson(x: unknown): Value {
  if (x === null || x === undefined) return null;
  if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') return x;
  if (Array.isArray(x)) return WsArray.list(x.map(fromJson));
  if (typeof x === 'object') return WsArray.entries(Object.entries(x as Record<string, unknown>).map(([k, v]) => [k, fromJson(v)] as const));
  return null;
}

/** A script value as plain JSON-able data (lists as arrays, other arrays as objects). */
export function toPlain(v: Value, seen = new Set<WsArray>(), depth = 0): unknown {
  if (v instanceof WsArray) {
    guard(seen, v, depth);
    seen.add(v);
    const out = v.isList() ? v.values().map((x) => toPlain(x, seen, depth + 1)) : Object.fromEntries([...v.map].map(([k, x]) => [String(k), toPlain(x, seen, depth + 1)]));
    seen.delete(v);
    return out;
  }
  if (v instanceof WsRegex) return v.source;
  if (v instanceof WsFunction) return null;
  return v;
}

/** A numeric string as a number (`" 1.5"`, `"1e3"`, `"0x1A"` is not), else null. */
export function numericValue(s: string): number | null {
  const t = s.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  return Number(t);
}

/** `==`: values of the same type by value (arrays by their items), strings against a regex by matching. */
export function looseEquals(a: Value, b: Value, match: (re: RegExp, s: string) => boolean, depth = 0): boolean {
  if (a === null || b === null) return a === b;
  if (a instanceof WsRegex && typeof b === 'string') return match(a.re, b);
  if (b instanceof WsRegex && typeof a === 'string') return match(b.re, a);
  const ta = typeName(a);
  const tb = typeName(b);
  if (ta !== tb) {
    // Variables are text: "1" == 1 compares numerically.
    if (ta === 'number' && tb === 'string') return numericValue(b as string) === a;
    if (ta === 'string' && tb === 'number') return numericValue(a as string) === b;
    throw new WsRuntimeError(`Cannot compare '${ta}' and '${tb}'`);
  }
  if (a instanceof WsArray && b instanceof WsArray) {
    if (depth > MAX_NEST) throw new WsLimitError(`Arrays nested deeper than ${MAX_NEST} levels`);
    if (a === b) return true;
    if (a.size !== b.size) return false;
    for (const [k, v] of a.map) {
      const w = b.get(k);
      if (w === undefined || !sameType(v, w) || !looseEquals(v, w, match, depth + 1)) return false;
    }
    return true;
  }
  if (a instanceof WsRegex && b instanceof WsRegex) return a.source === b.source && a.flags === b.flags;
  return a === b;
}

function sameType(a: Value, b: Value): boolean {
  return typeName(a) === typeName(b);
}

/** `<`, `>`, `<=`, `>=`: numbers (numeric strings too) and strings. */
export function order(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'string' && numericValue(b) !== null) return a - numericValue(b)!;
  if (typeof a === 'string' && typeof b === 'number' && numericValue(a) !== null) return numericValue(a)! - b;
  return fail(`Cannot compare '${typeName(a)}' and '${typeName(b)}'`);
}

// Variables live in the scope of the script or of the function call they are assigned in
// (blocks and loops have none, as in PHP). Functions read the scopes they were defined in; a scope
// holds values and a function value holds its scope, so both live in this file.
export class Scope {
  readonly vars = new Map<string, Value>();

  constructor(readonly parent: Scope | null) {}

  lookup(name: string): Value | undefined {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks the scope chain outward from this scope
    for (let s: Scope | null = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  set(name: string, value: Value): void {
    this.vars.set(name, value);
  }
}
