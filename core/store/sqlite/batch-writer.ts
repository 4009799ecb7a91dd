// The capture write path's group commit: ONE implementation, used on the main connection for
// ':memory:' databases and on the writer worker's own connection for files (writer-worker.ts).
// It imports nothing but types, so the worker can load it without the rest of the store.
import type { Database } from 'better-sqlite3';
import type { RequestRecord } from '../types.js';

/**
 * One capture to store: its `requests` row (toRow: the INSERT's parameters, JSON columns already
 * serialized, so it crosses to the writer thread as flat strings, numbers and bytes), its token's
 * request_limit, its uploaded files.
 */
export interface WriteItem {
  row: unknown[];
  limit: number;
  files?: Map<string, Uint8Array>;
}

// Positions in a row of what the batch needs besides inserting it.
const UUID = 0;
const TOKEN = 1;
/** The body's position in a row. */
export const BODY = 10;
const CREATED_AT = 21;

/** Per item of a batch: null when committed, else why it was not. */
export type WriteOutcome = null | { gone: true } | { gone: false; error: unknown };

/** JSON text of a column; the common empty values skip the serializer (this is the capture hot path). */
export const json = (v: unknown) =>
  Array.isArray(v) && v.length === 0 ? '[]' : v !== null && typeof v === 'object' && isEmpty(v) ? '{}' : JSON.stringify(v);
function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** The INSERT's parameters for a record, in the column order of createBatchWriter's statement. */
export function toRow(r: RequestRecord, body: Uint8Array | undefined = r.body): unknown[] {
  return [
    r.uuid, r.token_id, r.type, r.team_id, r.ip, r.hostname, r.method, r.user_agent, r.url, r.content_type, body, r.size,
    r.query === null ? null : json(r.query), json(r.headers), r.form === null ? null : json(r.form), json(r.files),
    json(r.custom_action_output), json(r.custom_action_errors), r.time, r.note, r.sorting, r.created_at, r.updated_at, json(r.extra),
  ];
}

export interface BatchWriter {
  /**
   * Writes the batch in one transaction (one bad item does not lose the others: the batch is then
   * retried one by one). Returns one outcome per item, in order; throws nothing.
   */
  commit(batch: WriteItem[]): WriteOutcome[];
}

export function createBatchWriter(db: Database): BatchWriter {
  const insert = db.prepare(`INSERT INTO requests
    (uuid, token_id, type, team_id, ip, hostname, method, user_agent, url, content_type, body, size, query, headers, form,
     files, output, errors, time, note, sorting, created_at, updated_at, extra)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertFile = db.prepare('INSERT INTO request_files (request_uuid, file_id, data) VALUES (?, ?, ?)');
  // One statement per token and batch: the bump returns the new count, for trimming.
  const bumpToken = db.prepare<[number, unknown, unknown, string], { n: number }>(
    'UPDATE tokens SET request_count = request_count + ?, latest_request_id = ?, latest_request_at = ? WHERE uuid = ? RETURNING request_count AS n',
  );
  const dropCount = db.prepare('UPDATE tokens SET request_count = request_count - ? WHERE uuid = ?');
  const trimOldest = db.prepare(
    'DELETE FROM requests WHERE seq IN (SELECT seq FROM requests WHERE token_id = ? ORDER BY sorting ASC, seq ASC LIMIT ?)',
  );

  // Per token touched by a batch: its limit, how many were added, and the newest of them.
  const touched = new Map<string, { limit: number; added: number; latest: unknown[] }>();
  const tx = db.transaction((batch: WriteItem[]) => {
    touched.clear();
    for (const p of batch) {
      insert.run(p.row);
      if (p.files) for (const [id, data] of p.files) insertFile.run(p.row[UUID], id, data);
      const tokenId = p.row[TOKEN] as string;
      const t = touched.get(tokenId);
      if (t) {
        t.added++;
        t.limit = p.limit;
        t.latest = p.row;
      } else touched.set(tokenId, { limit: p.limit, added: 1, latest: p.row });
    }
    for (const [tokenId, { limit, added, latest }] of touched) {
      // The token row is updated once per batch, not once per capture.
      const n = bumpToken.get(added, latest[UUID], latest[CREATED_AT], tokenId)?.n ?? 0;
      if (n > limit) {
        // Only the oldest go, so the latest request is unchanged: no need to recount.
        const removed = trimOldest.run(tokenId, n - limit).changes;
        dropCount.run(removed, tokenId);
      }
    }
  });
  // IMMEDIATE: take the write lock up front (waiting through busy_timeout), so another connection
  // writing the same file can never make this transaction fail half-way with SQLITE_BUSY.
  const commitTx = tx.immediate;

  return {
    commit(batch) {
      try {
        commitTx(batch);
        return batch.map(() => null);
      } catch {
        // One bad record must not lose the others: retry one by one.
        return batch.map((p): WriteOutcome => {
          try {
            commitTx([p]);
            return null;
          } catch (e) {
            // The token was deleted while this capture was on its way.
            if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { gone: true };
            return { gone: false, error: e };
          }
        });
      }
    },
  };
}
