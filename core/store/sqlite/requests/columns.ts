// The requests table's columns as the capture writer binds them, and a stored row read back as a
// record: both compiled from the one column table (core/store/request-columns.ts). Imports nothing
// but that table and types: the writer thread loads it (writer/writer-worker.ts).
import { absentValue, REQUEST_COLUMNS, type RequestColumn } from '../../request-columns.js';
import type { RequestRecord, RequestType } from '../../types.js';

/** JSON text of a column; the common empty values skip the serializer (this is the capture hot path). */
export const json = (v: unknown) => (Array.isArray(v) && v.length === 0 ? '[]' : v !== null && typeof v === 'object' && isEmpty(v) ? '{}' : JSON.stringify(v));
function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** Text JSON.stringify writes otherwise than between quotes: quotes, backslashes, control characters, surrogates (lone ones escaped). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
const quoted = (s: string) => (ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`);

/**
 * JSON text of an object of string lists (a capture's headers), the same as JSON.stringify's: the
 * same keys in the same order (own enumerable ones), each string quoted alike. Anything else is
 * left to JSON.stringify. JSON.stringify looks each object and list up for a toJSON method, through
 * V8's generic property lookup, which cost more than writing the text (in-process, about 0.1 µs
 * a capture of a few headers).
 */
export function listsJson(o: Record<string, unknown>): string {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return JSON.stringify(o);
  const keys = Object.keys(o);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const list = o[keys[i]!];
    if (!Array.isArray(list)) return JSON.stringify(o);
    out += (i === 0 ? '' : ',') + quoted(keys[i]!) + ':[';
    for (let j = 0; j < list.length; j++) {
      const v: unknown = list[j];
      if (typeof v !== 'string') return JSON.stringify(o);
      out += (j === 0 ? '' : ',') + quoted(v);
    }
    out += ']';
  }
  return out + '}';
}

/** A request row's writer and reader for a list of columns (REQUEST_COLUMNS; a recipe test adds one). */
export interface RequestRowCodec {
  /** The columns in the INSERT's order. */
  readonly columns: readonly RequestColumn[];
  /**
   * The INSERT's parameters for a record, in the columns' order. When every `usually` column holds
   * its usual value (most captures), the row stops before them (plainColumns values) and the INSERT
   * writes them itself. JSON columns are serialized: the row crosses to the writer thread as flat
   * strings, numbers and bytes (writer/batch-codec.ts).
   */
  toRow(r: RequestRecord): unknown[];
  /** The INSERT for a full row or a plain one (toRow's two forms); with `rows`, that many rows of that form. */
  insertSql(plain: boolean, rows?: number, orFail?: boolean): string;
  /** How many values a plain row has. */
  readonly plainColumns: number;
  /** Where a column's value is in a row. */
  position(name: string): number;
  /** A stored row (SELECT *) as a record. */
  toRecord(row: Record<string, unknown>): RequestRecord;
}

const nullable = (c: RequestColumn) => !/\bNOT NULL\b/i.test(c.sql);

export function requestRowCodec(columns: readonly RequestColumn[] = REQUEST_COLUMNS): RequestRowCodec {
  const firstUsual = columns.findIndex((c) => c.usually);
  const plainColumns = firstUsual < 0 ? columns.length : firstUsual;
  if (columns.slice(plainColumns).some((c) => !c.usually)) throw new Error('request columns: every column with `usually` comes last');
  const head = columns.slice(0, plainColumns);
  const tail = columns.slice(plainColumns);
  // toRow is compiled from the table once, so that the capture hot path runs the same code a
  // hand-written one would: one array literal, no loop or call per column.
  const get = (c: RequestColumn) => `r[${JSON.stringify(c.field)}]`;
  const serialize = (c: RequestColumn) => `${c.json === 'lists' ? 'listsJson' : 'json'}(${get(c)})`;
  const value = (c: RequestColumn) => (!c.json ? get(c) : nullable(c) ? `(${get(c)} === null ? null : ${serialize(c)})` : serialize(c));
  const usual = (c: RequestColumn) =>
    c.usually === 'NULL'
      ? `(${[`${get(c)} == null`, ...(c.usuallyAlso ?? []).map((v) => `${get(c)} === ${JSON.stringify(v)}`)].join(' || ')})`
      : c.usually === "'[]'"
        ? `${get(c)}.length === 0`
        : c.usually === "'{}'"
          ? `isEmpty(${get(c)})`
          : `${get(c)} === ${JSON.stringify(c.usually!.slice(1, -1))}`;
  // A tail column may be undefined on the record (an optional field): bound as NULL.
  const tailValue = (c: RequestColumn) => (c.json || !nullable(c) ? value(c) : `(${get(c)} ?? null)`);
  const body = tail.length
    ? `const row = [${head.map(value).join(', ')}];\n  if (!(${tail.map(usual).join(' && ')})) row.push(${tail.map(tailValue).join(', ')});\n  return row;`
    : `return [${head.map(value).join(', ')}];`;
  const toRow = new Function('json', 'listsJson', 'isEmpty', `return function toRow(r) {\n  ${body}\n};`)(json, listsJson, isEmpty) as (r: RequestRecord) => unknown[];
  const names = columns.map((c) => c.name);
  const tailSql = tail.map((c) => c.usually!).join(', ');
  return {
    columns,
    toRow,
    insertSql(plain, rows = 1, orFail = false) {
      const values = Array(plain ? plainColumns : columns.length).fill('?');
      if (plain && tail.length) values.push(tailSql);
      const tuple = `(${values.join(', ')})`;
      return `INSERT${orFail ? ' OR FAIL' : ''} INTO requests (${names.join(', ')}) VALUES ${Array(rows).fill(tuple).join(', ')}`;
    },
    plainColumns,
    position(name) {
      const i = names.indexOf(name);
      if (i < 0) throw new Error(`request columns: no column ${name}`);
      return i;
    },
    toRecord(row) {
      const r: Record<string, unknown> = {};
      for (const c of columns) {
        const v = row[c.name];
        const value = v === null || v === undefined ? absentValue(c, row.type as RequestType) : c.json ? JSON.parse(v as string) : v;
        if (value !== undefined) r[c.field] = value;
      }
      return r as unknown as RequestRecord;
    },
  };
}

/** The requests table's codec. */
export const REQUEST_ROW = requestRowCodec();
export const toRow = REQUEST_ROW.toRow;
export const toRecord = REQUEST_ROW.toRecord;
export const insertSql = (plain: boolean, rows?: number, orFail?: boolean) => REQUEST_ROW.insertSql(plain, rows, orFail);
export const PLAIN_COLUMNS = REQUEST_ROW.plainColumns;
// Where the batch finds what it needs of a row besides inserting it.
export const UUID = REQUEST_ROW.position('uuid');
export const TOKEN = REQUEST_ROW.position('token_id');
export const SORTING = REQUEST_ROW.position('sorting');
