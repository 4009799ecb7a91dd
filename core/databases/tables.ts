// The Database Manager: a hosted database's tables with their columns, their structure changed, and
// their rows browsed and edited, all on the database's own role in one transaction per call
// (DatabaseService.session). Statements are built by ddl.ts from validated input; row values are
// bound parameters. Rows are edited by primary key only: a table without one is browsed read-only
// (ctid is not stable across updates and VACUUM FULL, so it cannot name a row between two calls).
import type pg from 'pg';
import type { z } from 'zod';
import { Conflict, HttpError, NotFound, ValidationError, fromZod, type FieldErrors } from '../errors.js';
import { COLUMN_TYPES, DEFAULT_EXPRESSIONS, columnDefinition, columnType, createTableSql, defaultSql, quoteIdent, tableRef, type ColumnSpec, type DefaultExpression } from './ddl.js';
import { isPgError, type DatabaseService, type PgError } from './service.js';
import { ColumnAddBody, ColumnUpdateBody, PrimaryKeyBody, RowInsertBody, RowUpdateBody, RowsDeleteBody, TableCreateBody, TableRenameBody, type ColumnView, type TableListView, type TableView } from './tables.schema.js';

export type Column = z.infer<typeof ColumnView>;
export type Table = z.infer<typeof TableView>;
type Row = Record<string, unknown>;

/** Tables estimated below this many rows are counted exactly (a count stops there). */
const EXACT_COUNT_BELOW = 10_000;

/** Which table a call is about: the caller, their database and the table's own name. */
export interface TableAt {
  userId: number;
  id: string;
  table: string;
}

/** What a call on one table works with: the connection, the schema, the table as it was read and its quoted name. */
interface OnTable {
  c: pg.PoolClient;
  schema: string;
  t: Table;
  ref: string;
  /** The table as it is after the call's changes. */
  reread: () => Promise<Table>;
}

const noInput = (): void => undefined;

export interface BrowseOptions {
  page: number;
  perPage: number;
  sort?: string;
  order: 'asc' | 'desc';
  filterColumn?: string;
  filterValue?: string;
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) throw fromZod(r.error);
  return r.data;
}

/** A PostgreSQL error caused by the request (a failed cast, a duplicate, a dependent view...) as a 4xx naming the server's message. */
function requestError(err: PgError & { code: string }, timeoutMs: number, field?: string): HttpError {
  let message = err.message;
  if (err.detail) message += ` (${err.detail})`;
  if (err.code === '42804' && /default for column/.test(err.message)) message += ': give the column a new default (or null for none) with the new type';
  const errors: FieldErrors | undefined = field ? { [field]: [message] } : undefined;
  const cls = err.code.slice(0, 2);
  if (err.code === '57014') return new HttpError(408, `The statement ran past the ${timeoutMs / 1000} s limit and was cancelled`);
  if (err.code === '42P01') return new NotFound(message);
  if (['42P07', '42701', '42710', '23505', '23503', '23P01', '2BP01', '40001', '40P01', '55P03'].includes(err.code)) return new Conflict(message, errors);
  if (['22', '23', '42', '0A', '2B', '44', 'P0', '25', '54'].includes(cls)) return new ValidationError(message, errors);
  // Server-side trouble (out of disk, too many connections, internal): not the caller's fault.
  return new HttpError(503, `The database failed: ${message}`);
}

/** A value bound for a column: arrays for array columns as they are (pg writes the array literal), other objects as JSON text. */
function bindValue(v: unknown, type: string): unknown {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v) && type.endsWith('[]')) return v;
  if (typeof v === 'object') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  return v;
}

/** A listed type as SQL (the body schemas have checked it is one). */
function typeOf(type: string, allowSerial: boolean): string {
  const t = columnType(type, { allowSerial });
  if ('error' in t) throw new ValidationError(`The type ${t.error}`, { type: [t.error] });
  return t.sql;
}

function columnSpec(col: { name: string; type: string; default?: string | null; default_expression?: DefaultExpression | null }, nullable: boolean): ColumnSpec {
  return {
    name: col.name,
    typeSql: typeOf(col.type, true),
    nullable,
    default: col.default_expression ? { expression: col.default_expression } : col.default !== undefined && col.default !== null ? { value: col.default } : undefined,
  };
}

export class TableManager {
  constructor(private readonly databases: DatabaseService) {}

  /** Runs `work` as the database's role; PostgreSQL errors become 4xx (under `field` when given). */
  private async session<T>(userId: number, id: string, work: (c: pg.PoolClient, schema: string) => Promise<T>, field?: string): Promise<T> {
    try {
      return await this.databases.session(userId, id, work);
    } catch (err) {
      if (isPgError(err)) throw requestError(err, this.databases.statementTimeoutMs, field);
      throw err;
    }
  }

  /** The tables of a schema (or one of them) with their columns, in name order. */
  private async describe(c: pg.PoolClient, schema: string, only?: string): Promise<Table[]> {
    const tables = await c.query<{ oid: number; name: string; rows_estimate: string }>(
      `SELECT c.oid, c.relname AS name,
              (CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE coalesce(s.n_live_tup, 0) END)::bigint AS rows_estimate
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND ($2::text IS NULL OR c.relname = $2)
        ORDER BY c.relname`,
      [schema, only ?? null],
    );
    if (!tables.rowCount) return [];
    const columns = await c.query<{ oid: number; name: string; type: string; nullable: boolean; default: string | null; key_position: number | null }>(
      `SELECT a.attrelid AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
              pg_get_expr(d.adbin, d.adrelid) AS default, array_position(i.indkey::int2[], a.attnum) AS key_position
         FROM pg_attribute a
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
        WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attrelid, a.attnum`,
      [tables.rows.map((t) => t.oid)],
    );
    // Statistics lag behind fresh writes (and say nothing before the first ANALYZE): small tables are counted instead.
    const counted = new Map<number, number>();
    for (const t of tables.rows) {
      if (Number(t.rows_estimate) >= EXACT_COUNT_BELOW) continue;
      const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${tableRef(schema, t.name)} LIMIT ${EXACT_COUNT_BELOW}) s`);
      counted.set(t.oid, Number(r.rows[0]!.n));
    }
    return tables.rows.map((t) => {
      const own = columns.rows.filter((col) => col.oid === t.oid);
      return {
        name: t.name,
        rows_estimate: counted.get(t.oid) ?? Math.max(0, Number(t.rows_estimate)),
        primary_key: own
          .filter((col) => col.key_position !== null)
          .sort((a, b) => a.key_position! - b.key_position!)
          .map((col) => col.name),
        columns: own.map((col) => ({ name: col.name, type: col.type, nullable: col.nullable, default: col.default, primary_key: col.key_position !== null })),
      };
    });
  }

  private async table(c: pg.PoolClient, schema: string, name: string): Promise<Table> {
    const [t] = await this.describe(c, schema, name);
    if (!t) throw new NotFound(`Table ${JSON.stringify(name)} not found`);
    return t;
  }

  /**
   * Runs `work` on an existing table as the database's role, in the order the API answers: the
   * database first (404/403), then the body (`input`, 422), then the table (404).
   */
  private onTable<I, T>(at: TableAt, input: () => I, work: (on: OnTable, input: I) => Promise<T>, field?: string): Promise<T> {
    return this.session(
      at.userId,
      at.id,
      async (c, schema) => {
        const read = input();
        const t = await this.table(c, schema, at.table);
        return work({ c, schema, t, ref: tableRef(schema, at.table), reread: () => this.table(c, schema, at.table) }, read);
      },
      field,
    );
  }

  /** A column of the table, or a 404 naming it. */
  private static column(t: Table, name: string): Column {
    const col = t.columns.find((c) => c.name === name);
    if (!col) throw new NotFound(`${t.name} has no column ${JSON.stringify(name)}`);
    return col;
  }

  /** The values of the named columns, bound for their types (the names are the table's columns). */
  private static bindAll(t: Table, names: readonly string[], values: Row): unknown[] {
    return names.map((n) => bindValue(values[n], t.columns.find((col) => col.name === n)!.type));
  }

  /** Names that are not columns of the table: a 422 under `field`. */
  private static requireColumns(t: Table, names: string[], field: string): void {
    const unknown = names.filter((n) => !t.columns.some((c) => c.name === n));
    if (unknown.length) throw new ValidationError(`${t.name} has no column ${unknown.map((n) => JSON.stringify(n)).join(', ')}`, { [field]: [`unknown column: ${unknown.join(', ')}`] });
  }

  async list(userId: number, id: string): Promise<z.infer<typeof TableListView>> {
    const data = await this.session(userId, id, (c, schema) => this.describe(c, schema));
    return { data, column_types: [...COLUMN_TYPES], default_expressions: [...DEFAULT_EXPRESSIONS] };
  }

  get(at: TableAt): Promise<Table> {
    return this.session(at.userId, at.id, (c, schema) => this.table(c, schema, at.table));
  }

  async create(userId: number, id: string, body: unknown): Promise<Table> {
    return this.session(userId, id, async (c, schema) => {
      const t = parse(TableCreateBody, body);
      const columns = t.columns.map((col) => columnSpec(col, col.nullable && !col.primary_key));
      const key = t.columns.filter((col) => col.primary_key).map((col) => col.name);
      await c.query(createTableSql(tableRef(schema, t.name), columns, key));
      return this.table(c, schema, t.name);
    });
  }

  async rename(at: TableAt, body: unknown): Promise<Table> {
    return this.onTable(
      at,
      () => parse(TableRenameBody, body),
      async ({ c, schema, ref }, { name }) => {
        if (name !== at.table) await c.query(`ALTER TABLE ${ref} RENAME TO ${quoteIdent(name)}`);
        return this.table(c, schema, name);
      },
      'name',
    );
  }

  async drop(at: TableAt): Promise<void> {
    await this.onTable(at, noInput, async ({ c, ref }) => {
      await c.query(`DROP TABLE ${ref}`);
    });
  }

  async addColumn(at: TableAt, body: unknown): Promise<Table> {
    return this.onTable(
      at,
      () => {
        const col = parse(ColumnAddBody, body);
        return columnSpec(col, col.nullable);
      },
      async ({ c, ref, reread }, spec) => {
        await c.query(`ALTER TABLE ${ref} ADD COLUMN ${columnDefinition(spec)}`);
        return reread();
      },
    );
  }

  /** Type, nullability and default in one ALTER TABLE, then the rename: all or nothing. */
  async updateColumn(at: TableAt, column: string, body: unknown): Promise<Table> {
    // The field a PostgreSQL error is reported under: the first change that can fail on the rows.
    const b = (body ?? {}) as Record<string, unknown>;
    const field = b.type !== undefined ? 'type' : b.nullable !== undefined ? 'nullable' : b.default !== undefined || b.default_expression !== undefined ? 'default' : 'name';
    return this.onTable(
      at,
      () => {
        const change = parse(ColumnUpdateBody, body);
        return { change, typeSql: change.type === undefined ? undefined : typeOf(change.type, false) };
      },
      async ({ c, t, ref, reread }, { change, typeSql }) => {
        const current = TableManager.column(t, column);
        const col = quoteIdent(column);
        const parts: string[] = [];
        // A new default given with a new type replaces the old one before the cast (the old may not cast).
        const newDefault = change.default !== undefined || change.default_expression !== undefined;
        if (typeSql && newDefault && current.default !== null) parts.push(`ALTER COLUMN ${col} DROP DEFAULT`);
        if (typeSql) parts.push(`ALTER COLUMN ${col} TYPE ${typeSql} USING ${col}::${typeSql}`);
        if (change.nullable !== undefined) parts.push(`ALTER COLUMN ${col} ${change.nullable ? 'DROP' : 'SET'} NOT NULL`);
        if (change.default_expression) parts.push(`ALTER COLUMN ${col} SET DEFAULT ${defaultSql({ expression: change.default_expression })}`);
        else if (change.default !== undefined && change.default !== null) parts.push(`ALTER COLUMN ${col} SET DEFAULT ${defaultSql({ value: change.default })}`);
        else if ((change.default === null || change.default_expression === null) && !(typeSql && current.default !== null)) parts.push(`ALTER COLUMN ${col} DROP DEFAULT`);
        if (parts.length) await c.query(`ALTER TABLE ${ref} ${parts.join(', ')}`);
        if (change.name !== undefined && change.name !== column) await c.query(`ALTER TABLE ${ref} RENAME COLUMN ${col} TO ${quoteIdent(change.name)}`);
        return reread();
      },
      field,
    );
  }

  async dropColumn(at: TableAt, column: string): Promise<Table> {
    return this.onTable(at, noInput, async ({ c, t, ref, reread }) => {
      TableManager.column(t, column);
      await c.query(`ALTER TABLE ${ref} DROP COLUMN ${quoteIdent(column)}`);
      return reread();
    });
  }

  /** Replaces the primary key (an empty list drops it). */
  async setPrimaryKey(at: TableAt, body: unknown): Promise<Table> {
    return this.onTable(
      at,
      () => {
        const { columns } = parse(PrimaryKeyBody, body);
        if (new Set(columns).size !== columns.length) throw new ValidationError('A column appears twice in the key', { columns: ['names a column twice'] });
        return columns;
      },
      async ({ c, t, ref, reread }, columns) => {
        TableManager.requireColumns(t, columns, 'columns');
        const existing = await c.query<{ conname: string }>(`SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`, [ref]);
        for (const k of existing.rows) await c.query(`ALTER TABLE ${ref} DROP CONSTRAINT ${quoteIdent(k.conname)}`);
        if (columns.length) await c.query(`ALTER TABLE ${ref} ADD PRIMARY KEY (${columns.map(quoteIdent).join(', ')})`);
        return reread();
      },
      'columns',
    );
  }

  /** A page of rows, sorted (default: the primary key, else physical order) and optionally filtered by one column's value. */
  async browse(at: TableAt, o: BrowseOptions): Promise<{ items: Row[]; total: number; primary_key: string[] }> {
    return this.onTable(
      at,
      noInput,
      async ({ c, t, ref }) => {
        if (o.sort !== undefined) TableManager.requireColumns(t, [o.sort], 'sort');
        if (o.filterColumn !== undefined) TableManager.requireColumns(t, [o.filterColumn], 'filter_column');
        if ((o.filterColumn === undefined) !== (o.filterValue === undefined))
          throw new ValidationError('filter_column and filter_value go together', { [o.filterColumn === undefined ? 'filter_column' : 'filter_value']: ['is required with the other filter field'] });
        // json has no equality operator: its text is compared instead.
        const filterType = t.columns.find((col) => col.name === o.filterColumn)?.type;
        const where = o.filterColumn !== undefined ? `WHERE ${quoteIdent(o.filterColumn)}${filterType === 'json' ? '::text' : ''} = $1` : '';
        const values: unknown[] = o.filterColumn !== undefined ? [o.filterValue] : [];
        const dir = o.order === 'desc' ? 'DESC' : 'ASC';
        // The key after the chosen column keeps pages stable when sort values repeat.
        const order = [...(o.sort !== undefined ? [o.sort] : []), ...t.primary_key.filter((k) => k !== o.sort)].map((k) => `${quoteIdent(k)} ${dir}`);
        // Without a key, physical order breaks the ties (stable between two pages unless rows change).
        if (!t.primary_key.length) order.push(`ctid ${dir}`);
        const orderBy = `ORDER BY ${order.join(', ')}`;
        const total = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${ref} ${where}`, values);
        const rows = await c.query(`SELECT * FROM ${ref} ${where} ${orderBy} LIMIT ${o.perPage} OFFSET ${(o.page - 1) * o.perPage}`, values);
        return { items: rows.rows as Row[], total: Number(total.rows[0]!.n), primary_key: t.primary_key };
      },
      'filter_value',
    );
  }

  async insertRow(at: TableAt, body: unknown): Promise<Row> {
    return this.onTable(
      at,
      () => parse(RowInsertBody, body).values,
      async ({ c, t, ref }, values) => {
        const names = Object.keys(values);
        TableManager.requireColumns(t, names, 'values');
        const r = names.length
          ? await c.query(`INSERT INTO ${ref} (${names.map(quoteIdent).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`, TableManager.bindAll(t, names, values))
          : await c.query(`INSERT INTO ${ref} DEFAULT VALUES RETURNING *`);
        return r.rows[0] as Row;
      },
      'values',
    );
  }

  /** The key's WHERE clause (every key column, bound from `from`), or a 422 when the table has no key or the key is incomplete. */
  private static keyWhere(t: Table, key: Row, from: number, field: string): { sql: string; values: unknown[] } {
    if (!t.primary_key.length) throw new ValidationError(`${t.name} has no primary key: its rows can be browsed but not edited here (add a primary key, or use a query)`, { [field]: ['the table has no primary key'] });
    const missing = t.primary_key.filter((k) => !(k in key) || key[k] === null || key[k] === undefined);
    const extra = Object.keys(key).filter((k) => !t.primary_key.includes(k));
    if (missing.length || extra.length)
      throw new ValidationError(`A row of ${t.name} is named by its primary key (${t.primary_key.join(', ')})`, { [field]: [`give exactly the key columns: ${t.primary_key.join(', ')}`] });
    return {
      sql: t.primary_key.map((k, i) => `${quoteIdent(k)} = $${from + i}`).join(' AND '),
      values: TableManager.bindAll(t, t.primary_key, key),
    };
  }

  async updateRow(at: TableAt, body: unknown): Promise<Row> {
    return this.onTable(
      at,
      () => parse(RowUpdateBody, body),
      async ({ c, t, ref }, { key, values }) => {
        const names = Object.keys(values);
        TableManager.requireColumns(t, names, 'values');
        const where = TableManager.keyWhere(t, key, names.length + 1, 'key');
        const r = await c.query(`UPDATE ${ref} SET ${names.map((n, i) => `${quoteIdent(n)} = $${i + 1}`).join(', ')} WHERE ${where.sql} RETURNING *`, [...TableManager.bindAll(t, names, values), ...where.values]);
        if (!r.rowCount) throw new NotFound('No row has that key');
        return r.rows[0] as Row;
      },
      'values',
    );
  }

  async deleteRows(at: TableAt, body: unknown): Promise<number> {
    return this.onTable(
      at,
      () => parse(RowsDeleteBody, body).keys,
      async ({ c, t, ref }, keys) => {
        let deleted = 0;
        for (const [i, key] of keys.entries()) {
          const where = TableManager.keyWhere(t, key, 1, `keys.${i}`);
          deleted += (await c.query(`DELETE FROM ${ref} WHERE ${where.sql}`, where.values)).rowCount ?? 0;
        }
        return deleted;
      },
      'keys',
    );
  }
}
