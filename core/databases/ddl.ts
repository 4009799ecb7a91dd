// The Database Manager's SQL, built from validated input only: identifiers are quoted here, column
// types come from a fixed list (with lengths parsed as integers), defaults are quoted literals or
// one of a few named expressions, and row values are always bound parameters. Nothing the caller
// sends is pasted into a statement as SQL.
import { z } from 'zod';

/** PostgreSQL truncates identifiers past NAMEDATALEN - 1 bytes; longer names are refused instead. */
export const MAX_IDENTIFIER_BYTES = 63;

export const Identifier = z
  .string()
  .trim()
  .min(1, 'is required')
  .refine((s) => Buffer.byteLength(s) <= MAX_IDENTIFIER_BYTES, `must be at most ${MAX_IDENTIFIER_BYTES} bytes long`)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

/** `"name"` with embedded quotes doubled: the one way a name enters a statement. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'` with embedded quotes doubled (standard_conforming_strings is on since PostgreSQL 9.1; E'' is never used). */
export function quoteLiteral(text: string): string {
  if (text.includes('\u0000')) throw new Error('A literal cannot contain NUL');
  return `'${text.replace(/'/g, "''")}'`;
}

/** The column types the manager offers; `serial` ones only when a column is created. */
export const COLUMN_TYPES = [
  'smallint',
  'integer',
  'bigint',
  'serial',
  'bigserial',
  'numeric',
  'real',
  'double precision',
  'boolean',
  'text',
  'varchar',
  'char',
  'uuid',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'interval',
  'json',
  'jsonb',
  'bytea',
  'inet',
  'cidr',
  'macaddr',
] as const;

/** Other spellings of the listed types (what format_type reports, and common aliases). */
const ALIASES: Record<string, (typeof COLUMN_TYPES)[number]> = {
  int: 'integer',
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  serial4: 'serial',
  serial8: 'bigserial',
  decimal: 'numeric',
  float4: 'real',
  float8: 'double precision',
  float: 'double precision',
  bool: 'boolean',
  'character varying': 'varchar',
  character: 'char',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
  'time without time zone': 'time',
};

const SERIAL = new Set(['serial', 'bigserial']);
const TYPE_SYNTAX = /^([a-z][a-z0-9 ]*?)\s*(?:\(\s*(\d{1,4})\s*(?:,\s*(\d{1,4})\s*)?\))?(\[\])?$/;

/** A type from the list, its length or precision and scale, as SQL; or a message saying what is allowed. */
export function columnType(input: string, opts: { allowSerial: boolean }): { sql: string } | { error: string } {
  const m = TYPE_SYNTAX.exec(input.trim().toLowerCase().replace(/\s+/g, ' '));
  const base = m ? (ALIASES[m[1]!] ?? m[1]!) : '';
  if (!m || !(COLUMN_TYPES as readonly string[]).includes(base)) return { error: `is not a supported type (one of: ${COLUMN_TYPES.join(', ')}; varchar(n), char(n), numeric(p,s); [] for an array)` };
  if (SERIAL.has(base) && !opts.allowSerial) return { error: `${base} is only possible for a new column (it creates a sequence); use ${base === 'serial' ? 'integer' : 'bigint'}` };
  const [, , a, b, array] = m;
  if (SERIAL.has(base) && array) return { error: 'cannot be an array of serial' };
  let sql: string = base;
  if (a !== undefined) {
    const n = Number(a);
    if (base === 'numeric') {
      const scale = b === undefined ? undefined : Number(b);
      if (n < 1 || n > 1000) return { error: 'numeric precision must be from 1 to 1000' };
      if (scale !== undefined && scale > n) return { error: 'numeric scale must not exceed its precision' };
      sql = `numeric(${n}${scale === undefined ? '' : `,${scale}`})`;
    } else if (base === 'varchar' || base === 'char') {
      if (b !== undefined || n < 1 || n > 10_485_760) return { error: `${base}(n) takes one length from 1 to 10485760` };
      sql = `${base}(${n})`;
    } else return { error: `${base} takes no length` };
  }
  return { sql: array ? `${sql}[]` : sql };
}

/** Named default expressions (a default is otherwise a literal value). */
export const DEFAULT_EXPRESSIONS = ['now()', 'current_date', 'current_timestamp', 'gen_random_uuid()'] as const;
export type DefaultExpression = (typeof DEFAULT_EXPRESSIONS)[number];

/** A column default as SQL: a quoted literal (PostgreSQL converts it to the column's type, or refuses it), or one of the named expressions. */
export function defaultSql(d: { value: string } | { expression: DefaultExpression }): string {
  return 'expression' in d ? d.expression : quoteLiteral(d.value);
}

export interface ColumnSpec {
  name: string;
  typeSql: string;
  nullable: boolean;
  default?: { value: string } | { expression: DefaultExpression };
}

/** One column of CREATE TABLE / ADD COLUMN. */
export function columnDefinition(c: ColumnSpec): string {
  let sql = `${quoteIdent(c.name)} ${c.typeSql}`;
  if (!c.nullable) sql += ' NOT NULL';
  if (c.default) sql += ` DEFAULT ${defaultSql(c.default)}`;
  return sql;
}

/**
 * `"schema"."table"`: tables are always named with their schema, as pg_catalog comes first on the
 * search path (a table called pg_class would otherwise be the catalog's).
 */
export function tableRef(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

export function createTableSql(target: string, columns: ColumnSpec[], primaryKey: string[]): string {
  const parts = columns.map(columnDefinition);
  if (primaryKey.length) parts.push(`PRIMARY KEY (${primaryKey.map(quoteIdent).join(', ')})`);
  return `CREATE TABLE ${target} (${parts.join(', ')})`;
}
