// The whitelist of searchable fields and where each one lives in either store. Both compilers go
// through resolveField(), so a field name from a query never reaches SQL or a Mongo filter raw:
// only the trusted column expressions and paths written in this file do, plus key segments that
// passed SEGMENT (letters, digits, `_`, `-`), which rules out `$`, quotes, backslashes and dots.
import { QuerySyntaxError, quote } from './errors.js';

/** How a value is compared: substring, whole value, numeric range, date range, or file name. */
export type MatchKind = 'contains' | 'exact' | 'number' | 'date' | 'file';

/**
 * How a compiler names a requests column in its SQL: bare, or qualified by the table's alias where
 * the statement joins tables sharing column names (the engine's index tables copy some).
 */
export type ColumnRef = (column: string) => string;

/** Where the value sits in SQLite. `column`, `expr` and `existsExpr` are trusted SQL written in this file. */
export type SqlSource =
  /**
   * A column, or an expression over columns (`expr`, given how to name them); `existsExpr`
   * overrides what `_exists_` measures.
   */
  | { kind: 'column'; column: string; expr?: (col: ColumnRef) => string; existsExpr?: (col: ColumnRef) => string }
  /** The JSON value at `path` in a JSON text column; arrays match when any element does. */
  | { kind: 'json'; column: string; path: string[] }
  /** The `files` JSON array; `key` is a file's form field name or id, null for any file. */
  | { kind: 'files'; key: string | null };

export interface FieldSpec {
  /** Canonical field name (header names lower-cased). */
  name: string;
  match: MatchKind;
  /**
   * What `_exists_` means: `present` = the key is there with a non-null value (map-like prefixes
   * such as query.x); `nonEmpty` = there is a non-null, non-empty value (or a non-empty array).
   */
  exists: 'present' | 'nonEmpty';
  sql: SqlSource;
  /** Dotted path in the Mongo document (segments are validated, never user text beyond SEGMENT). */
  mongo: string;
  /** The Mongo value is an array (so `_exists_` means "has an element"). */
  mongoArray: boolean;
  /** The value may be a JSON boolean or number (extra/form/query), not only a string. */
  loose: boolean;
  /**
   * Mongo documents of `type` lacking the field hold `value` (documents stored before the field
   * was), as the SQL expression says for its NULLs.
   */
  mongoUnset?: { type: string; value: string };
}

type Fixed = Omit<FieldSpec, 'name'>;

const column = (match: MatchKind, name: string, mongo = name): Fixed => ({
  match,
  exists: 'nonEmpty',
  sql: { kind: 'column', column: name },
  mongo,
  mongoArray: false,
  loose: false,
});

const extra = (match: MatchKind, key: string, mongoArray = false): Fixed => ({
  match,
  exists: 'nonEmpty',
  sql: { kind: 'json', column: 'extra', path: [key] },
  mongo: `extra.${key}`,
  mongoArray,
  loose: true,
});

const jsonArray = (column: string, mongo: string): Fixed => ({
  match: 'contains',
  exists: 'nonEmpty',
  sql: { kind: 'json', column, path: [] },
  mongo,
  mongoArray: true,
  loose: false,
});

// A Map, not an object literal, so names like `constructor` or `__proto__` never resolve.
const FIXED = new Map<string, Fixed>([
  ['uuid', column('exact', 'uuid')],
  ['token_id', column('exact', 'token_id')],
  ['team_id', column('number', 'team_id')],
  ['type', column('exact', 'type')],
  ['hostname', column('contains', 'hostname')],
  ['size', column('number', 'size')],
  // The body is a BLOB and this SQLite build never LIKE-matches blobs, hence the CAST. Mongo keeps
  // a decoded copy of the body for searching.
  [
    'content',
    {
      match: 'contains',
      exists: 'nonEmpty',
      // length(body) counts bytes; the CAST would stop at a NUL byte.
      sql: { kind: 'column', column: 'body', expr: (col) => `CAST(${col('body')} AS TEXT)`, existsExpr: (col) => col('body') },
      mongo: 'content_text',
      mongoArray: false,
      loose: false,
    },
  ],
  ['time', column('number', 'time')],
  ['created_at', column('date', 'created_at')],
  ['updated_at', column('date', 'updated_at')],
  ['sorting', column('number', 'sorting')],
  ['custom_action_output', jsonArray('output', 'custom_action_output')],
  ['custom_action_errors', jsonArray('errors', 'custom_action_errors')],
  ['note', column('contains', 'note')],
  ['method', column('exact', 'method')],
  // NULL is '1.1' for a web capture (migration 28); e-mail and DNS captures have no version.
  [
    'http_version',
    {
      ...column('exact', 'http_version'),
      sql: { kind: 'column', column: 'http_version', expr: (col) => `CASE WHEN ${col('type')} = 'web' THEN coalesce(${col('http_version')}, '1.1') END` },
      mongoUnset: { type: 'web', value: '1.1' },
    },
  ],
  ['user_agent', column('contains', 'user_agent')],
  ['url', column('contains', 'url')],
  ['ip', column('exact', 'ip')],
  ['country', extra('contains', 'country')],
  ['country_code', extra('exact', 'country_code')],
  ['region', extra('contains', 'region')],
  ['city', extra('contains', 'city')],
  ['sender', extra('contains', 'sender')],
  ['text_content', extra('contains', 'text_content')],
  ['html_content', extra('contains', 'html_content')],
  ['message_id', extra('contains', 'message_id')],
  ['destinations', extra('contains', 'destinations', true)],
]);

/** `prefix.key` fields: the JSON column (and path under it) that holds the map, and its Mongo path. */
const PREFIXES = new Map<string, { column: string; path: string[]; mongo: string; lowerCase: boolean }>([
  // Headers are stored with lower-case names, and header names are case-insensitive anyway.
  ['headers', { column: 'headers', path: [], mongo: 'headers', lowerCase: true }],
  ['query', { column: 'query', path: [], mongo: 'query', lowerCase: false }],
  ['request', { column: 'form', path: [], mongo: 'form', lowerCase: false }],
  ['checks', { column: 'extra', path: ['checks'], mongo: 'extra.checks', lowerCase: false }],
  ['dns', { column: 'extra', path: ['dns'], mongo: 'extra.dns', lowerCase: false }],
]);

/** One key segment under a prefix. Deliberately narrow: see the file comment. */
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Characters a field name may contain in query text. */
export const FIELD_CHAR = /[A-Za-z0-9_.-]/;

/**
 * Maps a field name from a query to its spec, or throws naming the field. `headers.a.b` is the
 * nested path a → b (in both stores), so dots always separate keys.
 */
export function resolveField(name: string, position: number): FieldSpec {
  const fixed = FIXED.get(name);
  if (fixed) return { name, ...fixed };

  // `files` alone is any upload: `_exists_:files` has one, `files:*.pdf` has one by that name.
  if (name === 'files') return { name, match: 'file', exists: 'present', sql: { kind: 'files', key: null }, mongo: 'files', mongoArray: true, loose: false };

  const dot = name.indexOf('.');
  const prefix = dot > 0 ? name.slice(0, dot) : '';
  if (prefix === 'files' || PREFIXES.has(prefix)) {
    const segments = name.slice(dot + 1).split('.');
    if (!segments.every((s) => SEGMENT.test(s))) throw new QuerySyntaxError(`Invalid field name ${quote(name)}`, position);
    if (prefix === 'files') {
      // Files are an array of {name, id, filename, ...}; `files.x` is the file sent as form field x
      // (or with id x) and a value matches its filename.
      if (segments.length !== 1) throw new QuerySyntaxError(`Invalid field name ${quote(name)}`, position);
      return { name, match: 'file', exists: 'present', sql: { kind: 'files', key: segments[0] }, mongo: 'files', mongoArray: true, loose: false };
    }
    const p = PREFIXES.get(prefix)!;
    const keys = p.lowerCase ? segments.map((s) => s.toLowerCase()) : segments;
    return {
      name: `${prefix}.${keys.join('.')}`,
      match: 'contains',
      exists: 'present',
      sql: { kind: 'json', column: p.column, path: [...p.path, ...keys] },
      mongo: [p.mongo, ...keys].join('.'),
      mongoArray: false,
      loose: true,
    };
  }
  throw new QuerySyntaxError(`Unknown field ${quote(name)}`, position);
}
