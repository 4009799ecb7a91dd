// Bulk reads and writes of every kind of record (TransferRepo), for copying a whole store
// (core/store/migrate.ts). Plain tables are described once (TABLES) and copied row for row, keyed
// on their primary key; requests go through the request engine's capture writer (requests/transfer.ts), so their indexes and their tokens'
// figures are kept exactly as for captures.
import type { Database } from 'better-sqlite3';
import type { RequestWithFiles, TransferCheckpoint, TransferKind, TransferRecords, TransferRepo } from '../types.js';
import type { RequestTransfer } from './requests/index.js';
import { TOKEN_BOOLEAN_COLUMNS, TOKEN_COLUMNS, TOKEN_JSON_COLUMNS } from './token-columns.js';

type Row = Record<string, unknown>;

interface Table {
  table: string;
  /** The primary key's columns: the copy's order and what a write replaces on. */
  key: readonly string[];
  columns: readonly string[];
  /** Columns holding JSON text (SQL NULL stays null). */
  json?: readonly string[];
  /** Columns holding 0/1 for a boolean. */
  bool?: readonly string[];
  /** Rows that count (rate counters: the windows not expired yet). */
  live?: string;
}

const TABLES: { [K in Exclude<TransferKind, 'requests'>]: Table } = {
  users: {
    table: 'users',
    key: ['id'],
    columns: ['id', 'name', 'email', 'premium', 'team_id', 'user_type_id', 'role_id', 'group_ids', 'invite_hash', 'invite_expires_at', 'created_at', 'updated_at'],
    bool: ['premium'],
    json: ['group_ids'],
  },
  api_keys: { table: 'api_keys', key: ['id'], columns: ['id', 'user_id', 'hash', 'prefix', 'created_at'] },
  groups: { table: 'groups', key: ['id'], columns: ['id', 'user_id', 'name', 'created_at', 'updated_at'] },
  tokens: { table: 'tokens', key: ['uuid'], columns: TOKEN_COLUMNS, bool: TOKEN_BOOLEAN_COLUMNS, json: TOKEN_JSON_COLUMNS },
  workflows: { table: 'token_workflows', key: ['token_id'], columns: ['token_id', 'document', 'updated_at'], json: ['document'] },
  schedules: {
    table: 'schedules',
    key: ['id'],
    columns: ['id', 'user_id', 'group_id', 'document', 'source', 'last_run_at', 'last_status', 'created_at', 'updated_at'],
    json: ['document'],
  },
  schedule_logs: {
    table: 'schedule_logs',
    key: ['id'],
    columns: ['id', 'schedule_id', 'response_status', 'response_headers', 'response_body', 'time', 'error', 'tls_expires_at', 'tls_days_left', 'tls_alert', 'created_at', 'updated_at'],
    json: ['response_headers'],
  },
  notification_settings: {
    table: 'notification_settings',
    key: ['user_id'],
    columns: ['user_id', 'email', 'email_enabled', 'webhook_url', 'updated_at'],
    bool: ['email_enabled'],
  },
  global_variables: { table: 'global_variables', key: ['id'], columns: ['id', 'owner', 'name', 'value', 'created_at', 'updated_at'] },
  providers: {
    table: 'providers',
    key: ['id'],
    columns: ['id', 'user_id', 'type', 'name', 'settings', 'secret', 'created_at', 'updated_at'],
    json: ['settings'],
  },
  templates: {
    table: 'templates',
    key: ['id'],
    columns: ['id', 'user_id', 'name', 'variables', 'actions', 'created_at', 'updated_at'],
    json: ['variables', 'actions'],
  },
  databases: { table: 'databases', key: ['id'], columns: ['id', 'user_id', 'name', 'created_at', 'updated_at'] },
  queue_profiles: {
    table: 'queue_profiles',
    key: ['id'],
    columns: ['id', 'user_id', 'name', 'initial_delay', 'rate_limit', 'rate_period', 'job_lifetime', 'created_at', 'updated_at'],
  },
  action_failures: { table: 'action_failures', key: ['action_id'], columns: ['action_id', 'token_id', 'count', 'updated_at'] },
  token_shares: { table: 'token_shares', key: ['token_id'], columns: ['token_id', 'hash', 'created_at'] },
  error_log: {
    table: 'error_log',
    key: ['id'],
    columns: ['id', 'user_id', 'source', 'token_id', 'request_id', 'action_id', 'action_type', 'schedule_id', 'schedule_name', 'message', 'read', 'created_at'],
    bool: ['read'],
  },
  rate_counters: { table: 'rate_counters', key: ['key', 'window_start'], columns: ['key', 'window_start', 'count', 'expires_at'], live: 'expires_at > @now' },
};

function toRecord(t: Table, r: Row): Row {
  const out: Row = {};
  for (const c of t.columns) out[c] = r[c];
  for (const c of t.bool ?? []) out[c] = !!r[c];
  for (const c of t.json ?? []) out[c] = r[c] === null ? null : JSON.parse(String(r[c]));
  return out;
}

function toRow(t: Table, rec: Row): Row {
  const row: Row = {};
  for (const c of t.columns) row[c] = rec[c] ?? null;
  for (const c of t.bool ?? []) row[c] = rec[c] ? 1 : 0;
  for (const c of t.json ?? []) row[c] = rec[c] === null || rec[c] === undefined ? null : JSON.stringify(rec[c]);
  return row;
}

function tableRepo(db: Database, t: Table) {
  const keys = t.key.join(', ');
  const live = t.live ? ` AND ${t.live}` : '';
  const first = db.prepare<[Row], Row>(`SELECT * FROM ${t.table} WHERE 1${live} ORDER BY ${keys} LIMIT @limit`);
  const next = db.prepare<[Row], Row>(`SELECT * FROM ${t.table} WHERE (${keys}) > (${t.key.map((_, i) => `@k${i}`).join(', ')})${live} ORDER BY ${keys} LIMIT @limit`);
  const count = db.prepare<[Row], { n: number }>(`SELECT count(*) AS n FROM ${t.table} WHERE 1${live}`);
  const others = t.columns.filter((c) => !t.key.includes(c));
  const upsert = db.prepare(
    `INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${t.columns.map((c) => '@' + c).join(', ')})
     ON CONFLICT (${keys}) DO UPDATE SET ${others.map((c) => `${c} = excluded.${c}`).join(', ')}`,
  );
  const writeAll = db.transaction((rows: Row[]) => rows.forEach((r) => upsert.run(r)));
  const params = (now: number) => (t.live ? { now } : {});
  return {
    count: (now: number) => count.get(params(now))!.n,
    read(cursor: string | null, limit: number, now: number) {
      const rows = cursor === null ? first.all({ ...params(now), limit }) : next.all({ ...params(now), limit, ...Object.fromEntries((JSON.parse(cursor) as unknown[]).map((v, i) => [`k${i}`, v])) });
      const last = rows.at(-1);
      return { items: rows.map((r) => toRecord(t, r)), cursor: last ? JSON.stringify(t.key.map((k) => last[k])) : null };
    },
    write: (items: Row[]) => writeAll.immediate(items.map((r) => toRow(t, r))),
  };
}

/** `requests`: the request engine's part (requests/transfer.ts). */
export function sqliteTransfer(db: Database, requests: RequestTransfer): TransferRepo {
  const tables = Object.fromEntries(Object.entries(TABLES).map(([kind, t]) => [kind, tableRepo(db, t)])) as Record<Exclude<TransferKind, 'requests'>, ReturnType<typeof tableRepo>>;
  const checkpoints = db.prepare<[], Row>('SELECT * FROM transfer_checkpoints ORDER BY kind');
  const save = db.prepare(
    `INSERT INTO transfer_checkpoints (kind, source, cursor, copied, done) VALUES (@kind, @source, @cursor, @copied, @done)
     ON CONFLICT (kind) DO UPDATE SET source = excluded.source, cursor = excluded.cursor, copied = excluded.copied, done = excluded.done`,
  );
  const clear = db.prepare('DELETE FROM transfer_checkpoints');
  return {
    async count(kind, now) {
      return kind === 'requests' ? requests.count() : tables[kind].count(now);
    },
    async read<K extends TransferKind>(kind: K, cursor: string | null, limit: number, now: number) {
      const page = kind === 'requests' ? await requests.read(cursor, limit) : tables[kind as Exclude<TransferKind, 'requests'>].read(cursor, limit, now);
      return page as { items: Array<TransferRecords[K]>; cursor: string | null };
    },
    async write(kind, items) {
      if (!items.length) return;
      if (kind === 'requests') return requests.write(items as RequestWithFiles[]);
      tables[kind as Exclude<TransferKind, 'requests'>].write(items as unknown as Row[]);
    },
    async checkpoints() {
      return checkpoints.all().map((r) => ({ ...(r as unknown as TransferCheckpoint), done: !!r.done }));
    },
    async saveCheckpoint(c) {
      save.run({ ...c, done: c.done ? 1 : 0 });
    },
    async clearCheckpoints() {
      clear.run();
    },
  };
}
