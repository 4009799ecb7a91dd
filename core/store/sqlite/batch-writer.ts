// The capture write path's group commit: ONE implementation, used on the main connection for
// ':memory:' databases and on the writer worker's own connection for files (writer-worker.ts).
// It imports nothing but types, so the worker can load it without the rest of the store.
//
// A commit stores rows pending (k NULL); catchUp() later gives them their per-token bookkeeping in
// bulk: the partial token index (k = 1), the token's counters and latest request, trimming. Done
// per capture, that bookkeeping dirtied a page of the token index and one of the tokens table per
// token in every commit: with many tokens receiving at once, most of the WAL written.
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
   * Stores the batch in one transaction (one bad item does not lose the others: the batch is then
   * retried one by one). Returns one outcome per item, in order; throws nothing. The rows are
   * pending (k NULL): durable and readable by UUID, but not yet in their token's index, counters
   * or trimming. That is catchUp's work, done in bulk.
   */
  commit(batch: WriteItem[]): WriteOutcome[];
  /**
   * Indexes the pending rows, adds them to their tokens' counters and latest request, and trims
   * each token to its request_limit, in one transaction. Returns how many rows it took.
   */
  catchUp(): number;
}

export function createBatchWriter(db: Database): BatchWriter {
  const insert = db.prepare(`INSERT INTO requests
    (uuid, token_id, type, team_id, ip, hostname, method, user_agent, url, content_type, body, size, query, headers, form,
     files, output, errors, time, note, sorting, created_at, updated_at, extra)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertFile = db.prepare('INSERT INTO request_files (request_uuid, file_id, data) VALUES (?, ?, ?)');
  const tokenExists = db.prepare<[string], { x: number }>('SELECT 1 AS x FROM tokens WHERE uuid = ?');
  const pending = db.prepare<[], { token_id: string; uuid: string; created_at: number }>(
    'SELECT token_id, uuid, created_at FROM requests WHERE k IS NULL ORDER BY seq',
  );
  const markIndexed = db.prepare('UPDATE requests SET k = 1 WHERE k IS NULL');
  // One statement per token and catch-up: the bump returns the new count and the stored limit.
  const bumpToken = db.prepare<[number, string, number, string], { n: number; request_limit: number }>(
    'UPDATE tokens SET request_count = request_count + ?, latest_request_id = ?, latest_request_at = ? WHERE uuid = ? RETURNING request_count AS n, request_limit',
  );
  const dropCount = db.prepare('UPDATE tokens SET request_count = request_count - ? WHERE uuid = ?');
  const trimOldest = db.prepare(
    'DELETE FROM requests WHERE seq IN (SELECT seq FROM requests WHERE token_id = ? AND k = 1 ORDER BY sorting ASC, seq ASC LIMIT ?)',
  );
  const dropOrphans = db.prepare('DELETE FROM requests WHERE token_id = ? AND k = 1');

  /**
   * The request_limit each token's captures came with (the token as the capture saw it); a
   * catch-up after a restart, which has none, uses the token's stored limit.
   */
  const limits = new Map<string, number>();
  const alive = new Map<string, boolean>();

  const store = db.transaction((batch: WriteItem[]) => {
    const outcomes: WriteOutcome[] = [];
    alive.clear();
    for (const p of batch) {
      const tokenId = p.row[TOKEN] as string;
      let ok = alive.get(tokenId);
      if (ok === undefined) alive.set(tokenId, (ok = tokenExists.get(tokenId) !== undefined));
      // The token was deleted while this capture was on its way.
      if (!ok) {
        outcomes.push({ gone: true });
        continue;
      }
      insert.run(p.row);
      if (p.files) for (const [id, data] of p.files) insertFile.run(p.row[UUID], id, data);
      limits.set(tokenId, p.limit);
      outcomes.push(null);
    }
    return outcomes;
  });

  // Per token of a catch-up: how many rows it gets, and the newest of them.
  const touched = new Map<string, { added: number; latest: string; latestAt: number }>();
  const catchUp = db.transaction((): number => {
    touched.clear();
    let rows = 0;
    for (const r of pending.iterate()) {
      rows++;
      const t = touched.get(r.token_id);
      if (t) {
        t.added++;
        t.latest = r.uuid;
        t.latestAt = r.created_at;
      } else touched.set(r.token_id, { added: 1, latest: r.uuid, latestAt: r.created_at });
    }
    if (!rows) return 0;
    markIndexed.run();
    for (const [tokenId, { added, latest, latestAt }] of touched) {
      const bumped = bumpToken.get(added, latest, latestAt, tokenId);
      const limit = limits.get(tokenId) ?? bumped?.request_limit ?? 0;
      limits.delete(tokenId);
      if (!bumped) {
        // Deleted after its captures were stored: they go with it.
        dropOrphans.run(tokenId);
      } else if (bumped.n > limit) {
        // Only the oldest go, so the latest request is unchanged: no need to recount.
        const removed = trimOldest.run(tokenId, bumped.n - limit).changes;
        dropCount.run(removed, tokenId);
      }
    }
    return rows;
  });

  // IMMEDIATE: take the write lock up front (waiting through busy_timeout), so another connection
  // writing the same file can never make these transactions fail half-way with SQLITE_BUSY.
  const storeTx = store.immediate;
  const catchUpTx = catchUp.immediate;

  return {
    commit(batch) {
      try {
        return storeTx(batch);
      } catch {
        // One bad record must not lose the others: retry one by one.
        return batch.map((p): WriteOutcome => {
          try {
            return storeTx([p])[0]!;
          } catch (e) {
            return { gone: false, error: e };
          }
        });
      }
    },
    catchUp: () => catchUpTx(),
  };
}
