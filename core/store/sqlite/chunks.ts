// Long deletions (a filter's matches, a token's requests: up to a million rows) run as many short
// write transactions, so that the capture writer, which needs the same write lock, waits for one
// chunk at most instead of for the whole deletion. They run on a reader thread's connection
// (reader-pool.ts), pausing between chunks so that the capture writer, waiting on busy_timeout,
// takes the lock; on the main connection (':memory:') they yield to the event loop instead.
import type { Database } from 'better-sqlite3';
import { fromFor, KEYED, type FilterPlan } from './request-reads.js';

/** Requests deleted per transaction (a few ms each): what a capture commit may wait behind. */
export const DELETE_CHUNK = 500;

/**
 * Pause after each chunk on a thread. SQLite's busy handler polls (1, 2, 5, 10 ms...), so a writer
 * that found the lock taken needs the lock free for a while to see it free.
 */
export const DELETE_PAUSE_MS = 8;

/** Lets the event loop (and so the capture writer) run between two chunks. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Between two chunks: resolves to false when the deletion should stop (the store is closing). */
export type ChunkPause = () => Promise<boolean>;

/**
 * Deletes the requests matching a planned filter, walking the token index forward from the last
 * chunk (keyset); each chunk takes its count off the token's counter in its transaction, and the
 * latest request is refreshed at the end. Returns how many were deleted.
 */
export async function deleteMatching(db: Database, w: FilterPlan, pause: ChunkPause): Promise<number> {
  const chunk = db.prepare<unknown[], { st: number; sq: number }>(
    `SELECT k.st AS st, k.sq AS sq FROM ${fromFor(w)} WHERE ${w.sql} AND (k.st, k.sq) > (?, ?) ORDER BY k.st, k.sq LIMIT ${DELETE_CHUNK}`,
  );
  // Their keys go with them (trigger requests_unkey).
  const delSeqs = db.prepare('DELETE FROM requests WHERE seq IN (SELECT value FROM json_each(?))');
  const dropCount = db.prepare('UPDATE tokens SET request_count = max(request_count - ?, 0) WHERE uuid = ?');
  const refreshLatest = db.prepare(`UPDATE tokens SET
      latest_request_id = (SELECT r.uuid FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1),
      latest_request_at = (SELECT r.created_at FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1)
    WHERE uuid = @t`);
  const step = db.transaction((after: { st: number; sq: number }) => {
    const picked = chunk.all(...w.params, after.st, after.sq);
    const n = picked.length ? delSeqs.run(JSON.stringify(picked.map((p) => p.sq))).changes : 0;
    if (n) dropCount.run(n, w.tokenId);
    return { n, last: picked.at(-1) ?? null, more: picked.length === DELETE_CHUNK };
  });
  let deleted = 0;
  let after = { st: Number.MIN_SAFE_INTEGER, sq: 0 };
  for (;;) {
    // IMMEDIATE: another connection may hold the write lock; wait for it (busy_timeout) up front.
    const r = step.immediate(after);
    deleted += r.n;
    if (!r.more || !r.last) break;
    after = r.last;
    if (!(await pause())) break;
  }
  if (deleted) db.transaction(() => refreshLatest.run({ t: w.tokenId })).immediate();
  return deleted;
}

/**
 * Deletes a token's indexed requests (their keys and files go with them), before the token itself
 * is deleted with the few left. Returns how many.
 */
export async function deleteTokenRequests(db: Database, tokenId: string, pause: ChunkPause): Promise<number> {
  const delChunk = db.prepare(`DELETE FROM requests WHERE seq IN (SELECT sq FROM request_keys WHERE tk = ? LIMIT ${DELETE_CHUNK})`);
  const step = db.transaction(() => delChunk.run(tokenId).changes);
  let deleted = 0;
  for (;;) {
    const n = step.immediate();
    deleted += n;
    if (n < DELETE_CHUNK || !(await pause())) return deleted;
  }
}
