// Databases: per-user SQL databases hosted by this service on one PostgreSQL server
// (DATABASES_POSTGRES_URL), the Databases API and the JavaScript action's `db(database_id)`.
//
// Isolation: each database is a PostgreSQL schema owned by a role of its own, both named from the
// database's UUID (`whdb_<hex>`), never from user input. Queries run on connections that log in AS
// that role (LOGIN, a password derived from the service's secret key), not on the admin connection
// with SET ROLE: a superuser session that did SET ROLE can undo it from inside a query
// (`select set_config('role', 'none', true)`), a session of the role itself cannot become anyone
// else. The role owns only its schema and is a member of nothing, so other databases' schemas and
// the server's catalogs are out of reach. Each query is one statement (extended protocol) in a
// transaction with `SET LOCAL statement_timeout` and `SET LOCAL search_path` to the schema.
import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { z } from 'zod';
import { HttpError, NotFound, fromZod } from '../errors.js';
import type { Logger } from '../logger.js';
import { lazyImport } from '@capture/sdk/async';
import { bindParameters, ParameterError, postgresTypes, type SqlValue } from '@capture/sdk/sql';
import type { DatabaseQueryResult, Databases } from '@capture/sdk';
import type { DatabaseRecord, Page, Store } from '../store/types.js';
import { formatTimestamp, type Clock } from '../util/time.js';

/** Rows a query returns at most (the rest are counted in `rows`, not returned). */
export const MAX_ROWS = 1000;
export const NOT_CONFIGURED = 'Databases are not configured on this server (the administrator sets DATABASES_POSTGRES_URL)';

const Name = z.string().trim().min(1).max(100);

export const DatabaseCreateBody = z.object({
  name: Name,
  /** webhook.site's plans; accepted and ignored (no plans or quotas here). */
  plan: z.string().max(32).optional(),
});

export const DatabaseUpdateBody = z.object({ name: Name });

export const DatabaseQueryBody = z.object({
  query: z.string().min(1, 'is required').max(1_000_000),
  params: z
    .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
    .nullable()
    .optional(),
});

export interface DatabaseView {
  id: string;
  name: string;
  /** Bytes of the database's tables with their indexes (null when the server could not be asked). */
  bytes_used: number | null;
  tables_used: number | null;
  created_at: string;
  updated_at: string;
}

/** What the query endpoint answers (the documented shape). */
export interface QueryAnswer {
  result: Array<Record<string, unknown>> | null;
  error: string | null;
  time: number;
}

/** Databases are off: not bad input, but not a server fault either (a JSON 403, never a 5xx). */
export class DatabasesNotConfigured extends HttpError {
  constructor() {
    super(403, NOT_CONFIGURED);
  }
}

/** The PostgreSQL server failed us (unreachable, refused the admin's statement...). */
export class DatabasesUnavailable extends HttpError {
  constructor(message: string) {
    super(503, message);
  }
}

export interface DatabaseServiceOptions {
  /** postgres:// URL of a role that may CREATE ROLE and CREATE SCHEMA (a superuser is simplest); unset: Databases are off. */
  url?: string;
  /** Derives the roles' passwords: the same in every process that shares the server. */
  secretKey: string;
  statementTimeoutMs: number;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Per-database connection pools kept open at once (least recently used are closed). */
  maxPools?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Schema and role name of a database. Only ever built from a stored UUID. */
export function roleName(id: string): string {
  if (!UUID.test(id)) throw new Error(`Not a database id: ${id}`);
  return `whdb_${id.toLowerCase().replace(/-/g, '')}`;
}

// The driver is loaded by the first use of a database, not at start-up (most services have none).
const loadPg = lazyImport(() => import('pg').then((m) => m.default));

export interface PgError extends Error {
  code?: string;
  detail?: string;
  hint?: string;
  severity?: string;
  column?: string;
}
export const isPgError = (e: unknown): e is PgError & { code: string } => e instanceof Error && typeof (e as PgError).code === 'string' && /^[0-9A-Z]{5}$/.test((e as PgError).code!);

/** A statement's values: scalars as they are, objects and arrays as JSON text (json columns). */
function sqlValue(v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v);
}

function normaliseParams(params: unknown): SqlValue[] | Record<string, SqlValue> | null {
  if (params === null || params === undefined) return null;
  if (Array.isArray(params)) return params.map(sqlValue);
  if (typeof params === 'object') return Object.fromEntries(Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, sqlValue(v)]));
  throw new ParameterError('params must be a list of values or an object of named values');
}

/**
 * `:name` / `?` placeholders to `$n` (`textParams`: written `($n::text)`). A list with no
 * placeholders is taken as the values of `$1`, `$2`... written in the statement.
 */
function bind(sql: string, params: unknown, textParams?: ReadonlySet<number>): { text: string; values: SqlValue[]; rewritable: boolean } {
  const p = normaliseParams(params);
  const bound = bindParameters(sql, 'pgsql', p, textParams);
  if (bound.style === 'none' && Array.isArray(p) && p.length) return { text: sql, values: p, rewritable: false };
  return { text: bound.sql, values: bound.values, rewritable: bound.style !== 'none' };
}

/** `could not determine data type of parameter $n`: the n. */
function untypedParameter(err: PgError & { code: string }): number | null {
  if (err.code !== '42P18') return null;
  const m = /parameter \$(\d+)/.exec(err.message);
  return m ? Number(m[1]) : null;
}

/** Appends connection parameters to a postgres URL (pg lets query parameters override the URL's parts). */
function withParams(url: string, params: Record<string, string>): string {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  return base + (base.includes('?') ? '&' : '?') + new URLSearchParams(params).toString();
}

export class DatabaseService {
  private admin: pg.Pool | null = null;
  private readonly pools = new Map<string, pg.Pool>();
  private readonly maxPools: number;
  private closed = false;

  constructor(
    private readonly store: Pick<Store, 'databases'>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly opts: DatabaseServiceOptions,
  ) {
    this.maxPools = opts.maxPools ?? 20;
  }

  get configured(): boolean {
    return !!this.opts.url;
  }

  private requireConfigured(): string {
    if (!this.opts.url) throw new DatabasesNotConfigured();
    if (this.closed) throw new DatabasesUnavailable('Databases are shutting down');
    return this.opts.url;
  }

  private password(id: string): string {
    return createHmac('sha256', this.opts.secretKey).update(`capture-databases:${id}`).digest('base64url');
  }

  private async adminPool(): Promise<pg.Pool> {
    const url = this.requireConfigured();
    const driver = await loadPg();
    if (!this.admin) {
      this.admin = new driver.Pool({ connectionString: withParams(url, { application_name: 'capture-databases-admin' }), max: 3, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 10_000 });
      this.admin.on('error', (err) => this.opts.logger.warn('databases: admin connection lost', { error: err.message }));
    }
    return this.admin;
  }

  /** Runs admin statements; PostgreSQL failures become a 503 naming the server's message. */
  private async adminQuery(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await (await this.adminPool()).query(text, values);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new DatabasesUnavailable(`The databases server failed: ${(err as Error).message}`);
    }
  }

  /** The pool of connections logged in as the database's own role (most recently used last). */
  private async poolFor(id: string): Promise<pg.Pool> {
    const url = this.requireConfigured();
    const driver = await loadPg();
    const role = roleName(id);
    let pool = this.pools.get(role);
    if (pool) {
      this.pools.delete(role);
      this.pools.set(role, pool);
      return pool;
    }
    pool = new driver.Pool({
      connectionString: withParams(url, { user: role, password: this.password(id), application_name: 'capture-databases' }),
      max: 2,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: 10_000,
      types: postgresTypes(driver),
    });
    pool.on('error', () => {}); // an idle connection that dies is replaced on next use
    this.pools.set(role, pool);
    while (this.pools.size > this.maxPools) {
      const [oldest, old] = this.pools.entries().next().value as [string, pg.Pool];
      this.pools.delete(oldest);
      void old.end().catch(() => {});
    }
    return pool;
  }

  private async dropPool(id: string): Promise<void> {
    const role = roleName(id);
    const pool = this.pools.get(role);
    if (!pool) return;
    this.pools.delete(role);
    await Promise.race([pool.end().catch(() => {}), new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  /** A connection as the database's role; a password refused (another SECRET_KEY before) is reset once. */
  private async connect(id: string): Promise<pg.PoolClient> {
    try {
      return await (await this.poolFor(id)).connect();
    } catch (err) {
      if (isPgError(err) && err.code === '28P01') {
        await this.dropPool(id);
        await this.adminQuery(`ALTER ROLE "${roleName(id)}" PASSWORD '${this.password(id)}'`);
        try {
          return await (await this.poolFor(id)).connect();
        } catch (again) {
          throw new DatabasesUnavailable(`The database cannot be opened: ${(again as Error).message}`);
        }
      }
      if (err instanceof HttpError) throw err;
      throw new DatabasesUnavailable(`The database cannot be opened: ${(err as Error).message}`);
    }
  }

  /** Tables and bytes of each schema, for the views; null figures when the server cannot say. */
  private async usage(ids: string[]): Promise<Map<string, { bytes: number; tables: number }>> {
    const out = new Map<string, { bytes: number; tables: number }>();
    if (!ids.length) return out;
    try {
      const r = await this.adminQuery(
        `SELECT n.nspname AS schema,
                count(c.oid) FILTER (WHERE c.relkind IN ('r', 'p'))::int AS tables,
                coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relkind IN ('r', 'p', 'm')), 0)::bigint AS bytes
           FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid
          WHERE n.nspname = ANY($1) GROUP BY n.nspname`,
        [ids.map(roleName)],
      );
      const byRole = new Map(ids.map((id) => [roleName(id), id]));
      for (const row of r.rows as Array<{ schema: string; tables: number; bytes: string }>) {
        const id = byRole.get(row.schema);
        if (id) out.set(id, { bytes: Number(row.bytes), tables: row.tables });
      }
    } catch (err) {
      this.opts.logger.warn('databases: usage figures unavailable', { error: (err as Error).message });
    }
    return out;
  }

  private view(r: DatabaseRecord, use?: { bytes: number; tables: number }): DatabaseView {
    return { id: r.id, name: r.name, bytes_used: use?.bytes ?? null, tables_used: use?.tables ?? null, created_at: formatTimestamp(r.created_at), updated_at: formatTimestamp(r.updated_at) };
  }

  private async record(userId: number, id: string): Promise<DatabaseRecord> {
    const r = UUID.test(id) ? await this.store.databases.get(userId, id.toLowerCase()) : null;
    if (!r) throw new NotFound('Database not found');
    return r;
  }

  async create(userId: number, body: unknown): Promise<DatabaseView> {
    this.requireConfigured();
    const parsed = DatabaseCreateBody.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error);
    const id = randomUUID();
    const role = roleName(id);
    // One Query message is one implicit transaction: the role and its schema exist together or not at all.
    await this.adminQuery(
      `CREATE ROLE "${role}" LOGIN PASSWORD '${this.password(id)}' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 20;
       CREATE SCHEMA "${role}" AUTHORIZATION "${role}";
       ALTER ROLE "${role}" SET search_path = "${role}"`,
    );
    const now = this.clock.now();
    const record: DatabaseRecord = { id, user_id: userId, name: parsed.data.name, created_at: now, updated_at: now };
    try {
      await this.store.databases.create(record);
    } catch (err) {
      await this.dropObjects(id).catch(() => {});
      throw err;
    }
    return this.view(record, { bytes: 0, tables: 0 });
  }

  async list(userId: number, opts: { page: number; perPage: number }): Promise<Page<DatabaseView>> {
    this.requireConfigured();
    const page = await this.store.databases.list(userId, opts);
    const use = await this.usage(page.items.map((d) => d.id));
    return { items: page.items.map((d) => this.view(d, use.get(d.id))), total: page.total };
  }

  async get(userId: number, id: string): Promise<DatabaseView> {
    this.requireConfigured();
    const r = await this.record(userId, id);
    return this.view(r, (await this.usage([r.id])).get(r.id));
  }

  async rename(userId: number, id: string, body: unknown): Promise<DatabaseView> {
    this.requireConfigured();
    const parsed = DatabaseUpdateBody.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error);
    await this.record(userId, id);
    const r = await this.store.databases.rename(userId, id.toLowerCase(), parsed.data.name, this.clock.now());
    if (!r) throw new NotFound('Database not found');
    return this.view(r, (await this.usage([r.id])).get(r.id));
  }

  /** Drops the schema with everything in it, then the role. */
  async delete(userId: number, id: string): Promise<void> {
    this.requireConfigured();
    const r = await this.record(userId, id);
    await this.dropObjects(r.id);
    await this.store.databases.delete(userId, r.id);
  }

  private async dropObjects(id: string): Promise<void> {
    const role = roleName(id);
    await this.dropPool(id);
    // Other processes' connections of the role (best effort: needs pg_signal_backend or superuser).
    await this.adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()', [role]).catch((err) =>
      this.opts.logger.warn('databases: could not end the connections of a deleted database', { role, error: (err as Error).message }),
    );
    const exists = (await this.adminQuery('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount! > 0;
    // One implicit transaction, as in create().
    await this.adminQuery(`DROP SCHEMA IF EXISTS "${role}" CASCADE${exists ? `; DROP OWNED BY "${role}" CASCADE; DROP ROLE "${role}"` : ''}`);
  }

  /** POST /databases/{id}/query: the documented `{result, error, time}`. */
  async queryApi(userId: number, id: string, body: unknown): Promise<QueryAnswer> {
    this.requireConfigured();
    const parsed = DatabaseQueryBody.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error);
    const r = await this.run(await this.record(userId, id), parsed.data.query, parsed.data.params);
    return { result: r.result, error: r.error, time: r.time };
  }

  /** The database by id, or else by name (db() takes either). */
  private async resolve(userId: number, idOrName: string): Promise<DatabaseRecord> {
    const key = idOrName.trim();
    const r = (UUID.test(key) ? await this.store.databases.get(userId, key.toLowerCase()) : null) ?? (await this.store.databases.findByName(userId, key));
    if (!r) throw new NotFound(`Database ${JSON.stringify(idOrName)} not found`);
    return r;
  }

  /** The Databases service of one account, for actions (a token without an owner has none). */
  forAccount(userId: number | null): Databases {
    return {
      query: async (id, sql, params) => {
        this.requireConfigured();
        if (userId === null) throw new Error('Databases belong to an account: this URL has no owner, so it cannot use db()');
        return this.run(await this.resolve(userId, String(id)), String(sql), params);
      },
    };
  }

  get statementTimeoutMs(): number {
    return this.opts.statementTimeoutMs;
  }

  /**
   * Runs `work` in one transaction on the user's database, logged in as its own role with the
   * statement timeout and search path queries get (the Database Manager's statements). PostgreSQL
   * errors and HttpErrors reject as they are, after a rollback; a lost connection is a 503.
   */
  async session<T>(userId: number, id: string, work: (client: pg.PoolClient, schema: string) => Promise<T>): Promise<T> {
    this.requireConfigured();
    const db = await this.record(userId, id);
    const schema = roleName(db.id);
    const client = await this.connect(db.id);
    let broken = false;
    try {
      await client.query(`BEGIN; RESET ALL; SET LOCAL statement_timeout = ${Math.floor(this.opts.statementTimeoutMs)}; SET LOCAL search_path = "${schema}"`);
      try {
        const out = await work(client, schema);
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      }
    } catch (err) {
      if (isPgError(err) || err instanceof HttpError) throw err;
      broken = true;
      throw new DatabasesUnavailable(`The database connection failed: ${(err as Error).message}`);
    } finally {
      client.release(broken);
    }
  }

  /** One statement in a transaction on the database's own role, limited in time and rows. */
  async run(db: DatabaseRecord, sql: string, params: unknown): Promise<DatabaseQueryResult> {
    const textParams = new Set<number>();
    let statement: ReturnType<typeof bind>;
    try {
      statement = bind(sql, params);
    } catch (err) {
      if (err instanceof ParameterError) return { result: null, error: err.message, rows: 0, time: 0 };
      throw err;
    }
    const schema = roleName(db.id);
    const timeoutMs = this.opts.statementTimeoutMs;
    const client = await this.connect(db.id);
    let broken = false;
    let started = performance.now();
    try {
      for (;;) {
        // RESET ALL undoes what earlier statements SET on this pooled connection (session defaults again).
        await client.query(`BEGIN; RESET ALL; SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}; SET LOCAL search_path = "${schema}"`);
        if (!textParams.size) started = performance.now();
        try {
          const out = await this.statement(client, statement, timeoutMs + 5_000);
          await client.query('COMMIT');
          return { result: out.rows, error: null, rows: out.count, time: elapsed(started) };
        } catch (err) {
          // A value the server cannot type (`concat('%', :x)`) is sent again as text, as webhook.site's
          // driver sends values as untyped literals. The statement failed at parse time: nothing ran.
          const k = isPgError(err) && statement.rewritable ? untypedParameter(err) : null;
          if (k === null || textParams.has(k) || k > statement.values.length) throw err;
          await client.query('ROLLBACK');
          textParams.add(k);
          statement = bind(sql, params, textParams);
        }
      }
    } catch (err) {
      const time = elapsed(started);
      if (err instanceof Overran) {
        broken = true;
        return { result: null, error: err.message, rows: 0, time };
      }
      if (isPgError(err)) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        return { result: null, error: describeError(err, timeoutMs), rows: 0, time };
      }
      broken = true;
      throw new DatabasesUnavailable(`The database connection failed: ${(err as Error).message}`);
    } finally {
      client.release(broken);
    }
  }

  /** Runs the statement keeping the first MAX_ROWS rows; past `backstopMs` the connection is cut. */
  private async statement(client: pg.PoolClient, s: { text: string; values: SqlValue[] }, backstopMs: number): Promise<{ rows: Array<Record<string, unknown>>; count: number }> {
    const driver = await loadPg();
    return new Promise((resolve, reject) => {
      // Extended protocol: exactly one statement, so nothing runs after a COMMIT it might contain.
      const query = new driver.Query({ text: s.text, values: s.values, queryMode: 'extended' } as pg.QueryConfig & { queryMode: 'extended' });
      const rows: Array<Record<string, unknown>> = [];
      let seen = 0;
      const timer = setTimeout(() => {
        const conn = client as unknown as { connection?: { stream?: { destroy(): void } } };
        conn.connection?.stream?.destroy();
        reject(new Overran(`The statement was still running ${backstopMs / 1000} s after it started and its connection was closed`));
      }, backstopMs);
      query.on('row', (row: Record<string, unknown>) => {
        seen++;
        if (rows.length < MAX_ROWS) rows.push(row);
      });
      query.on('error', (err: Error) => {
        clearTimeout(timer);
        reject(err);
      });
      query.on('end', (res: pg.QueryResult) => {
        clearTimeout(timer);
        const returnsRows = (res?.fields?.length ?? 0) > 0;
        resolve({ rows: returnsRows ? rows : [], count: returnsRows ? seen : (res?.rowCount ?? 0) });
      });
      client.query(query);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values(), ...(this.admin ? [this.admin] : [])];
    this.pools.clear();
    this.admin = null;
    await Promise.all(pools.map((p) => p.end().catch(() => {})));
  }
}

/** The statement outlived its timeout (the server did not stop it): its connection is cut. */
class Overran extends Error {}

const elapsed = (since: number) => Math.round((performance.now() - since) * 1000) / 1000;

/** `ERROR: <message> DETAIL: ... (SQLSTATE xxxxx)`, like psql prints it. */
function describeError(err: PgError & { code: string }, timeoutMs: number): string {
  let text = `${err.severity ?? 'ERROR'}: ${err.message}`;
  if (err.detail) text += ` DETAIL: ${err.detail}`;
  if (err.hint) text += ` HINT: ${err.hint}`;
  text += ` (SQLSTATE ${err.code})`;
  if (err.code === '57014' && /statement timeout/.test(err.message)) text += `: a query may run at most ${timeoutMs / 1000} s`;
  return text;
}
