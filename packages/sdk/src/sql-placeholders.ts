// Shared by the Database Query action (plugins/database) and the hosted Databases (core/databases).
// Statement parameters: `:name` (named, a single word) or `?` (positional), never both. A small
// tokenizer finds them outside string literals, quoted identifiers, comments and `::` casts, and
// the statement is rewritten in the driver's style: `$1` for PostgreSQL, `?` for MySQL, `@p1` for
// SQL Server. `??` stands for a literal `?` (PostgreSQL's JSON operators).

export type Dialect = 'mysql' | 'pgsql' | 'sqlsrv';
export type SqlValue = string | number | boolean | null;

/** `params` as the API takes it: a list of values or of `{name, value}` pairs, or a name -> value map. */
export type ParamsInput = Array<SqlValue | { name?: string | null; value?: SqlValue }> | Record<string, SqlValue> | null | undefined;

export type Placeholder =
  | { kind: 'named'; name: string; start: number; end: number }
  | { kind: 'positional'; start: number; end: number }
  /** `??`, written as `?`. */
  | { kind: 'escaped'; start: number; end: number };

export interface BoundStatement {
  sql: string;
  values: SqlValue[];
  style: 'none' | 'named' | 'positional';
}

/** A problem with the statement's parameters (not the database's). */
export class ParameterError extends Error {}

export const MIXED_MESSAGE = 'Named (:name) and positional (?) parameters cannot be mixed in one statement';

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;
const IDENT_CHAR = /[A-Za-z0-9_$]/;

/** The placeholders of `sql`, in order. */
export function scanPlaceholders(sql: string, dialect: Dialect): Placeholder[] {
  const found: Placeholder[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'") {
      i = skipQuoted(sql, i, "'", dialect === 'mysql' || (dialect === 'pgsql' && isEscapeString(sql, i)));
    } else if (c === '"') {
      i = skipQuoted(sql, i, '"', dialect === 'mysql');
    } else if (c === '`' && dialect === 'mysql') {
      i = skipQuoted(sql, i, '`', false);
    } else if (c === '[' && dialect === 'sqlsrv') {
      i = skipQuoted(sql, i, ']', false);
    } else if (c === '-' && next === '-' && (dialect !== 'mysql' || i + 2 >= n || /\s/.test(sql[i + 2]))) {
      i = lineEnd(sql, i);
    } else if (c === '#' && dialect === 'mysql') {
      i = lineEnd(sql, i);
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(sql, i, dialect === 'pgsql');
    } else if (c === '$' && dialect === 'pgsql' && !(i > 0 && IDENT_CHAR.test(sql[i - 1]))) {
      DOLLAR_TAG.lastIndex = i;
      const tag = DOLLAR_TAG.exec(sql);
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? n : close + tag[0].length;
      } else i++;
    } else if (c === ':') {
      if (next === ':') {
        i += 2; // a `::type` cast (or `geography::Point`)
        while (sql[i] === ':') i++;
        continue;
      }
      NAME.lastIndex = i + 1;
      const name = NAME.exec(sql);
      if (name) {
        found.push({ kind: 'named', name: name[0], start: i, end: i + 1 + name[0].length });
        i += 1 + name[0].length;
      } else i++;
    } else if (c === '?') {
      if (next === '?') {
        found.push({ kind: 'escaped', start: i, end: i + 2 });
        i += 2;
      } else {
        found.push({ kind: 'positional', start: i, end: i + 1 });
        i++;
      }
    } else {
      i++;
    }
  }
  return found;
}

/** Whether the statement mixes named and positional parameters. */
export function mixesStyles(sql: string, dialect: Dialect): boolean {
  const kinds = new Set(scanPlaceholders(sql, dialect).map((p) => p.kind));
  return kinds.has('named') && kinds.has('positional');
}

/**
 * The statement in the driver's placeholder style, and the values in the order the driver takes them.
 * `textParams` (PostgreSQL): parameter numbers written `($k::text)`, for parameters whose type the
 * server cannot infer (`concat('%', :x)`), as an untyped string literal would be taken.
 */
export function bindParameters(sql: string, dialect: Dialect, params: ParamsInput, textParams?: ReadonlySet<number>): BoundStatement {
  const pgParam = (k: number) => (textParams?.has(k) ? `($${k}::text)` : `$${k}`);
  const found = scanPlaceholders(sql, dialect);
  const named = found.some((p) => p.kind === 'named');
  const positional = found.some((p) => p.kind === 'positional');
  if (named && positional) throw new ParameterError(MIXED_MESSAGE);

  const values: SqlValue[] = [];
  let lookup: (p: Placeholder, index: number) => string;
  if (named) {
    const given = namedValues(params);
    const missing = [...new Set(found.flatMap((p) => (p.kind === 'named' && !given.has(p.name) ? [`:${p.name}`] : [])))];
    if (missing.length) throw new ParameterError(`No value given for parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
    const numbers = new Map<string, number>();
    lookup = (p) => {
      const name = (p as { name: string }).name;
      const value = given.get(name) as SqlValue;
      if (dialect === 'mysql') {
        values.push(value);
        return '?';
      }
      let k = numbers.get(name);
      if (k === undefined) {
        values.push(value);
        k = values.length;
        numbers.set(name, k);
      }
      return dialect === 'pgsql' ? pgParam(k) : `@p${k}`;
    };
  } else if (positional) {
    const list = positionalValues(params);
    const wanted = found.filter((p) => p.kind === 'positional').length;
    if (list.length !== wanted) {
      throw new ParameterError(`The statement has ${wanted} positional (?) parameter${wanted === 1 ? '' : 's'} but ${list.length} value${list.length === 1 ? ' was' : 's were'} given`);
    }
    lookup = (_p, index) => {
      values.push(list[index]);
      return dialect === 'pgsql' ? pgParam(index + 1) : dialect === 'sqlsrv' ? `@p${index + 1}` : '?';
    };
  } else {
    lookup = () => '?';
  }

  let out = '';
  let at = 0;
  let index = 0;
  for (const p of found) {
    out += sql.slice(at, p.start) + (p.kind === 'escaped' ? '?' : lookup(p, index++));
    at = p.end;
  }
  out += sql.slice(at);
  return { sql: out, values, style: named ? 'named' : positional ? 'positional' : 'none' };
}

function namedValues(params: ParamsInput): Map<string, SqlValue> {
  const out = new Map<string, SqlValue>();
  if (!params) return out;
  const entries: Array<[string, SqlValue | undefined]> = Array.isArray(params)
    ? params.map((item, i) => {
        if (item === null || typeof item !== 'object') throw new ParameterError(`Named parameters need {"name", "value"} pairs; params.${i} is a plain value`);
        if (!item.name?.trim()) throw new ParameterError(`params.${i} has no name`);
        return [item.name, item.value];
      })
    : Object.entries(params);
  for (const [name, value] of entries) out.set(name.trim().replace(/^:/, ''), value ?? null);
  return out;
}

function positionalValues(params: ParamsInput): SqlValue[] {
  if (!params) return [];
  if (!Array.isArray(params)) throw new ParameterError('Positional (?) parameters need a list of values, not names');
  return params.map((item) => (item !== null && typeof item === 'object' ? (item.value ?? null) : item));
}

/** Index after the closing quote (a doubled quote is part of the text), or the end. */
function skipQuoted(sql: string, start: number, close: string, backslash: boolean): number {
  for (let j = start + 1; j < sql.length; j++) {
    const ch = sql[j];
    if (backslash && ch === '\\') j++;
    else if (ch === close) {
      if (sql[j + 1] === close) j++;
      else return j + 1;
    }
  }
  return sql.length;
}

/** PostgreSQL's `E'...'` strings take backslash escapes; standard ones do not. */
function isEscapeString(sql: string, quote: number): boolean {
  const prev = sql[quote - 1];
  return (prev === 'E' || prev === 'e') && !(quote > 1 && IDENT_CHAR.test(sql[quote - 2]));
}

function lineEnd(sql: string, start: number): number {
  const nl = sql.indexOf('\n', start);
  return nl < 0 ? sql.length : nl + 1;
}

/** PostgreSQL nests block comments; the others do not. */
function skipBlockComment(sql: string, start: number, nested: boolean): number {
  let depth = 1;
  let j = start + 2;
  while (j < sql.length) {
    if (sql[j] === '*' && sql[j + 1] === '/') {
      depth--;
      j += 2;
      if (depth === 0 || !nested) return j;
    } else if (nested && sql[j] === '/' && sql[j + 1] === '*') {
      depth++;
      j += 2;
    } else j++;
  }
  return sql.length;
}
