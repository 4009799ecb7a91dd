// Replays (ReplayRepo): one row per replay, newest of a token first by (token_id, created_at);
// `limit` is the column `lim`, the log JSON text.
import type { Database } from 'better-sqlite3';
import type { ReplayPatch, ReplayRecord, ReplayRepo } from '../../types.js';

type Row = Omit<ReplayRecord, 'ordered' | 'cancel_requested' | 'log' | 'limit'> & { ordered: number; cancel_requested: number; log: string; lim: number };

const FIELDS = [
  'user_id',
  'mode',
  'url',
  'method',
  'query',
  'sorting',
  'ordered',
  'lim',
  'status',
  'cancel_requested',
  'total',
  'processed',
  'ran',
  'failed',
  'skipped',
  'log',
  'error',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
] as const;

function toRow(r: ReplayPatch): Record<string, unknown> {
  const row: Record<string, unknown> = { ...r };
  if (r.ordered !== undefined) row.ordered = r.ordered ? 1 : 0;
  if (r.cancel_requested !== undefined) row.cancel_requested = r.cancel_requested ? 1 : 0;
  if (r.log !== undefined) row.log = JSON.stringify(r.log);
  if (r.limit !== undefined) {
    row.lim = r.limit;
    delete row.limit;
  }
  return row;
}

function toRecord(r: Row): ReplayRecord {
  const { lim, ...rest } = r;
  return { ...rest, limit: lim, ordered: r.ordered === 1, cancel_requested: r.cancel_requested === 1, log: JSON.parse(r.log) as ReplayRecord['log'] };
}

export function sqliteReplays(db: Database): ReplayRepo {
  const insert = db.prepare(`INSERT INTO replays (id, token_id, ${FIELDS.join(', ')}) VALUES (@id, @token_id, ${FIELDS.map((f) => '@' + f).join(', ')})`);
  const trim = db.prepare<[string, string, number]>(`DELETE FROM replays WHERE token_id = ? AND rowid NOT IN (SELECT rowid FROM replays WHERE token_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`);
  const get = db.prepare<[string, string], Row>('SELECT * FROM replays WHERE token_id = ? AND id = ?');
  const byId = db.prepare<[string], Row>('SELECT * FROM replays WHERE id = ?');
  const list = db.prepare<[string, number], Row>('SELECT * FROM replays WHERE token_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?');
  const create = db.transaction((r: ReplayRecord, keep: number) => {
    insert.run(toRow(r));
    trim.run(r.token_id, r.token_id, keep);
  });
  return {
    async create(r, keep) {
      create(r, Math.max(1, Math.floor(keep)));
    },
    async get(tokenId, id) {
      const r = get.get(tokenId, id);
      return r ? toRecord(r) : null;
    },
    async list(tokenId, limit) {
      return list.all(tokenId, limit).map(toRecord);
    },
    async update(id, patch) {
      const row = toRow(patch);
      const cols = Object.keys(row).filter((k) => (FIELDS as readonly string[]).includes(k));
      if (cols.length) db.prepare(`UPDATE replays SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`).run({ ...Object.fromEntries(cols.map((c) => [c, row[c]])), id });
      const r = byId.get(id);
      return r ? toRecord(r) : null;
    },
  };
}
