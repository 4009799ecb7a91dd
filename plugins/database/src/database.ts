// The `database` action (Database Query): one statement on PostgreSQL, MySQL/MariaDB or SQL Server,
// or on one of the account's hosted databases (`database_id`: the Databases service, no host or
// login), with named (`:id`) or positional (`?`) parameters, its rows put in variables. The host is resolved
// through the outbound policy and only the approved address is connected to. A query has 10 s
// (less when the chain has less left); failures go to `$<variable_name>.error$` as well as to the
// action's errors.
import { boolean, defineAction, type ActionContext, optionalPort, optionalText, secret, variableName, z } from '@capture/sdk';
import { untilAborted } from '@capture/sdk/async';
import type { Driver, Target } from './driver.js';
import { MIXED_MESSAGE, bindParameters, mixesStyles, type Dialect } from './placeholders.js';
import { sqlServer } from './sqlserver.js';

export const QUERY_TIMEOUT_MS = 10_000;
/** Time kept back from the chain's budget so a timed-out query is still reported by this action. */
const BUDGET_MARGIN_MS = 200;

// pg and mysql2 are loaded with the first query of their kind, not at start-up (tedious already is,
// inside sqlserver.ts).
const DRIVERS: Record<Dialect, () => Promise<Driver>> = {
  pgsql: async () => (await import('./postgres.js')).postgres,
  mysql: async () => (await import('./mysql.js')).mysqlDriver,
  sqlsrv: async () => sqlServer,
};
const DEFAULT_PORTS: Record<Dialect, number> = { pgsql: 5432, mysql: 3306, sqlsrv: 1433 };
const ALIASES: Record<string, Dialect> = { postgres: 'pgsql', postgresql: 'pgsql', pg: 'pgsql', mariadb: 'mysql', mssql: 'sqlsrv', sqlserver: 'sqlsrv' };

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const param = z.union([scalar, z.object({ name: z.string().nullish().describe('`:id` or `id`; ignored for positional parameters'), value: scalar.optional() })]);

const DatabaseParams = z
  .object({
    database_id: z
      .preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.string().trim().max(128).optional())
      .describe('One of your hosted Databases (its ID or name): the statement runs there, and type, host, port, database, username and password are not used'),
    type: z
      .preprocess((v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : (ALIASES[v.trim().toLowerCase()] ?? v.trim().toLowerCase())) : v), z.enum(['mysql', 'pgsql', 'sqlsrv']).optional())
      .describe('mysql (also MariaDB), pgsql or sqlsrv; required without database_id'),
    host: optionalText().describe('Required without database_id'),
    port: optionalPort().describe('Default 5432 (pgsql), 3306 (mysql), 1433 (sqlsrv)'),
    database: optionalText().describe('The database name on the server; required without database_id'),
    username: optionalText().describe('Required without database_id'),
    password: secret(optionalText()).describe('For a PostgreSQL endpoint ID: endpoint=<id>;<password>'),
    statement: z.string().trim().min(1, 'is required').max(100_000),
    params: z
      .union([z.array(param).max(1000), z.record(z.string(), scalar)])
      .nullish()
      .describe('Named: [{"name": ":id", "value": "1"}] or {"id": "1"}; positional: ["1", "a"] in order'),
    variable_name: z.preprocess((v) => (v === '' || v === null ? undefined : v), variableName().optional()).describe('Prefix of the result variables; without it nothing is set'),
    charset: optionalText().describe('Connection character set (mysql: e.g. utf8mb4; pgsql: client_encoding, e.g. UTF8)'),
    repeat: boolean().optional().describe('Run the following actions once per row (at most 100), with $<variable_name>.<column>$ set'),
  })
  .superRefine((p, issue) => {
    if (!p.database_id) {
      for (const k of ['type', 'host', 'database', 'username'] as const) if (!p[k]) issue.addIssue({ code: 'custom', path: [k], message: 'is required (or choose a hosted database)' });
      if (p.host && p.host.length > 253) issue.addIssue({ code: 'custom', path: ['host'], message: 'must be at most 253 characters' });
    }
    if (mixesStyles(p.statement, p.type ?? 'pgsql')) issue.addIssue({ code: 'custom', path: ['statement'], message: MIXED_MESSAGE });
    if (p.repeat && !p.variable_name) issue.addIssue({ code: 'custom', path: ['variable_name'], message: 'is required with repeat' });
  });

export const database = defineAction({
  type: 'database',
  title: 'Database Query',
  category: 'network',
  description:
    'Runs one statement on a PostgreSQL (pgsql), MySQL/MariaDB (mysql) or SQL Server (sqlsrv) database, or on one of your hosted Databases (database_id; then no type, host or login). Use parameters for values: named (:id, single words) or positional (?), not both; `??` is a literal ?. With a variable name prefix, rows go to $<prefix>.<row>.<column>$ (rows from 0), all rows to $<prefix>.json$, the returned or affected row count to $<prefix>.rows$, and a failure to $<prefix>.error$. For an endpoint ID (Neon) write the password as endpoint=<id>;<password>. Timeout 10 s.',
  parameters: DatabaseParams,
  sets: ['<variable_name>.<row>.<column>', '<variable_name>.json', '<variable_name>.rows', '<variable_name>.error'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    if (params.database_id) return runHosted(ctx, params.database_id, params);
    const prefix = params.variable_name;
    const type = params.type!;
    const host = params.host!.trim().replace(/^\[(.*)\]$/, '$1');
    const port = params.port ?? DEFAULT_PORTS[type];
    const { password, endpoint } = type === 'pgsql' ? splitEndpoint(params.password ?? '') : { password: params.password ?? '', endpoint: undefined };

    const limitMs = Math.max(1, Math.min(QUERY_TIMEOUT_MS, ctx.timeLeftMs() - BUDGET_MARGIN_MS));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`Query timed out after ${seconds(limitMs)}`)), limitMs);
    const onChainAbort = () => controller.abort(new Error("The actions' time budget ran out during the query"));
    ctx.signal.addEventListener('abort', onChainAbort, { once: true });
    const started = performance.now();
    try {
      const bound = bindParameters(params.statement, type, params.params);
      const { address } = await untilAborted(controller.signal, ctx.services.net.resolve(host));
      const target: Target = { host, address, port, database: params.database!, username: params.username!, password, endpoint, charset: params.charset, net: ctx.services.net };
      const result = await (await DRIVERS[type]())(target, bound.sql, bound.values, controller.signal);
      report(ctx, params, result.rows, result.rowCount, result.returnsRows, Math.round(performance.now() - started));
    } catch (err) {
      const message = describe(err, [params.password ?? '', password]);
      if (!prefix) throw new Error(`Query on ${host}:${port} failed: ${message}`);
      ctx.vars.set(`${prefix}.error`, message);
      ctx.error(`Query on ${host}:${port} failed: ${message}`);
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onChainAbort);
    }
  },
});

type Params = z.output<typeof DatabaseParams>;
type Ctx = ActionContext<Params>;

/** The log line and, with a prefix, the variables (and the repeat) of a query's rows. */
function report(ctx: Ctx, params: Params, rawRows: Array<Record<string, unknown>>, rowCount: number, returnsRows: boolean, ms: number): void {
  const prefix = params.variable_name;
  const plural = rowCount === 1 ? 'row' : 'rows';
  const kept = returnsRows && rawRows.length < rowCount ? `; variables hold the first ${rawRows.length}` : '';
  ctx.log(`Query ${returnsRows ? 'returned' : 'affected'} ${rowCount} ${plural} in ${ms} ms${kept}`);
  if (!prefix) return;
  const rows = rawRows.map((row) => Object.fromEntries(Object.entries(row).map(([column, v]) => [column, jsonValue(v)])));
  rows.forEach((row, i) => {
    for (const [column, v] of Object.entries(row)) ctx.vars.set(`${prefix}.${i}.${column}`, cellText(v));
  });
  ctx.vars.set(`${prefix}.json`, JSON.stringify(rows));
  ctx.vars.set(`${prefix}.rows`, rowCount);
  if (params.repeat) {
    ctx.repeat(rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, v]) => [`${prefix}.${column}`, cellText(v)]))));
    ctx.log(`Repeating the following actions for ${Math.min(rows.length, 100)} row${rows.length === 1 ? '' : 's'}`);
  }
}

/** The action's params as the Databases service takes them: a map of named values, or a list. */
function hostedParams(p: Params['params']): Record<string, unknown> | unknown[] | undefined {
  if (p === null || p === undefined) return undefined;
  if (!Array.isArray(p)) return p;
  const named = p.flatMap((x) => (typeof x === 'object' && x !== null && x.name ? [{ name: x.name, value: x.value ?? null }] : []));
  if (named.length) return Object.fromEntries(named.map((x) => [x.name.replace(/^:/, ''), x.value]));
  return p.map((x) => (typeof x === 'object' && x !== null ? (x.value ?? null) : x));
}

/** The statement on one of the account's hosted databases (the Databases service applies its own limits). */
async function runHosted(ctx: Ctx, databaseId: string, params: Params): Promise<void> {
  const prefix = params.variable_name;
  try {
    const r = await untilAborted(ctx.signal, ctx.services.databases.query(databaseId, params.statement, hostedParams(params.params)));
    if (r.error !== null) throw new Error(r.error);
    const rows = r.result ?? [];
    report(ctx, params, rows, r.rows, rows.length > 0 || r.rows === 0, Math.round(r.time));
  } catch (err) {
    const message = describe(err, []);
    if (!prefix) throw new Error(`Query on the database ${databaseId} failed: ${message}`);
    ctx.vars.set(`${prefix}.error`, message);
    ctx.error(`Query on the database ${databaseId} failed: ${message}`);
  }
}

/** `endpoint=<id>;<password>` -> the endpoint ID and the real password. */
export function splitEndpoint(password: string): { password: string; endpoint?: string } {
  const m = /^endpoint=([^;]*);([\s\S]*)$/.exec(password);
  return m && m[1] ? { endpoint: m[1], password: m[2] } : { password };
}

/** A cell as JSON shows it: dates as ISO text, big integers as text, bytes as text (or base64). */
function jsonValue(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Buffer.isBuffer(v)) {
    const text = v.toString('utf8');
    return Buffer.from(text, 'utf8').equals(v) ? text : v.toString('base64');
  }
  return v;
}

/** A cell as a variable holds it: NULL is empty, JSON values are JSON text. */
function cellText(v: unknown): string {
  if (v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1))} s`;
}

/** The driver's message (or code), without the password. */
function describe(err: unknown, secrets: string[]): string {
  const e = err as { message?: string; code?: string; errors?: Array<{ message?: string }> } | undefined;
  let message = e?.message || e?.errors?.map((x) => x.message).find(Boolean) || e?.code || String(err);
  for (const s of secrets) if (s.length >= 3) message = message.split(s).join('***');
  return message;
}
