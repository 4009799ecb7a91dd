// The one table of a stored request's columns. SQLite's row writer and record reader
// (sqlite/requests/columns.ts), its store copy, the MongoDB documents (mongo/docs.ts) and the test
// fixtures are all built from it: a new column is a line here plus a migration (docs/storage.md).
import type { RequestRecord, RequestType } from './types.js';

export interface RequestColumn {
  /** The column of the SQLite requests table. */
  readonly name: string;
  /** The record field it holds. */
  readonly field: keyof RequestRecord;
  /** The MongoDB document's field, when not `field`. */
  readonly doc?: string;
  /** Its SQLite declaration after the name, as in CREATE TABLE or ALTER TABLE ... ADD COLUMN. */
  readonly sql: string;
  /**
   * Stored as JSON text in SQLite (a null record value stays NULL). 'lists': an object of string
   * lists (headers), which the SQLite writer serializes without JSON.stringify, to the same text.
   */
  readonly json?: boolean | 'lists';
  /**
   * What a record gets when the stored value is NULL or missing (an older document, a row written
   * before the column had a value); without it, null. A function decides by the request's type;
   * undefined leaves the field out of the record.
   */
  readonly absent?: unknown;
  /**
   * A column most captures leave at its default: the SQLite writer leaves it out of their row and
   * the INSERT writes this SQL instead, sparing a bound value per capture. The record's value must
   * then be null or undefined ('NULL'), an empty array ("'[]'"), an empty object ("'{}'") or, for
   * a text column, the text quoted (no quote inside).
   */
  readonly usually?: 'NULL' | "'[]'" | "'{}'" | `'${string}'`;
  /** Values besides null stored as NULL too (usually 'NULL'): `absent` reads them back. */
  readonly usuallyAlso?: readonly string[];
}

/**
 * The columns in the SQLite INSERT's order: every column without `usually` first (each capture binds
 * them), then those with it. team_id is among the first: every capture of a team's token has one.
 * type is among the others: nearly every capture is a web one.
 */
export const REQUEST_COLUMNS: readonly RequestColumn[] = [
  { name: 'uuid', field: 'uuid', sql: 'TEXT NOT NULL' },
  { name: 'token_id', field: 'token_id', sql: 'TEXT NOT NULL' },
  { name: 'ip', field: 'ip', sql: 'TEXT', absent: '' },
  { name: 'hostname', field: 'hostname', sql: 'TEXT', absent: '' },
  { name: 'method', field: 'method', sql: 'TEXT', absent: '' },
  { name: 'user_agent', field: 'user_agent', sql: 'TEXT', absent: '' },
  { name: 'url', field: 'url', sql: 'TEXT', absent: '' },
  { name: 'content_type', field: 'content_type', sql: 'TEXT' },
  { name: 'body', field: 'body', sql: 'BLOB NOT NULL' },
  { name: 'size', field: 'size', sql: 'INTEGER NOT NULL' },
  { name: 'query', field: 'query', sql: 'TEXT', json: true },
  { name: 'headers', field: 'headers', sql: 'TEXT NOT NULL', json: 'lists', absent: {} },
  { name: 'time', field: 'time', sql: 'REAL NOT NULL' },
  { name: 'sorting', field: 'sorting', sql: 'INTEGER NOT NULL' },
  { name: 'created_at', field: 'created_at', sql: 'INTEGER NOT NULL' },
  { name: 'updated_at', field: 'updated_at', sql: 'INTEGER NOT NULL' },
  { name: 'team_id', field: 'team_id', sql: 'INTEGER' },
  { name: 'type', field: 'type', sql: 'TEXT NOT NULL', usually: "'web'" },
  { name: 'form', field: 'form', sql: 'TEXT', json: true, usually: 'NULL' },
  { name: 'files', field: 'files', sql: 'TEXT NOT NULL', json: true, absent: [], usually: "'[]'" },
  { name: 'output', field: 'custom_action_output', sql: 'TEXT NOT NULL', json: true, absent: [], usually: "'[]'" },
  { name: 'errors', field: 'custom_action_errors', sql: 'TEXT NOT NULL', json: true, absent: [], usually: "'[]'" },
  { name: 'note', field: 'note', sql: 'TEXT', usually: 'NULL' },
  { name: 'extra', field: 'extra', sql: 'TEXT NOT NULL', json: true, absent: {}, usually: "'{}'" },
  // Web captures only; HTTP/1.1 ones leave it NULL, which reads as '1.1' (migration 28).
  { name: 'http_version', field: 'httpVersion', doc: 'http_version', sql: 'TEXT', absent: webDefault('1.1'), usually: 'NULL', usuallyAlso: ['1.1'] },
];

/** An `absent` value for web captures; other captures leave the field out. */
function webDefault(value: string): (r: { type: RequestType }) => string | undefined {
  return (r) => (r.type === 'web' ? value : undefined);
}

/**
 * A fresh copy of a column's `absent` value for a request of `type` (records must not share
 * objects); undefined: the record leaves the field out.
 */
export function absentValue(c: RequestColumn, type: RequestType): unknown {
  if (typeof c.absent === 'function') return (c.absent as (r: { type: RequestType }) => unknown)({ type });
  const a = c.absent ?? null;
  if (Array.isArray(a)) return [...a];
  return a !== null && typeof a === 'object' ? { ...a } : a;
}
