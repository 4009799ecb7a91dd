// Long deletions (a filter's matches, a token's requests: up to a million rows) run as many short
// write transactions, so that captures wait for one chunk at most instead of for the whole
// deletion. They run where the captures commit (reader-pool.ts): with the in-thread writer, on the
// event loop's connection between its turns, the matches read on a thread, taking the write lock
// without waiting (another process may hold it); beside a writer thread, on a thread's connection of
// their own, pausing between chunks so that the capture writer, waiting on busy_timeout, takes the
// lock. Either way they keep to a share of the time while captures come (pauseAfter).
import type { Database } from 'better-sqlite3';
import { commitWatch, giveWay, loopBusy, type CaptureActivity } from '../capture-activity.js';
import { purgeStaleText } from '../search/fts-writes.js';
import { isBusy, type NoWait } from '../no-wait.js';
import { tokenNumberOf } from '../token-number.js';
import { DRIVEN, fromFor, KEYED, pickFilter, type FilterPlans } from './request-reads.js';

/**
 * Each deletion transaction aims at this long: what a capture commit may wait behind. The rows per
 * transaction follow from the last one's time (a row costs 10-200 µs, as busy as the machine is).
 */
export const DELETE_CHUNK_MS = 4;
const FIRST_CHUNK = 100;
/** Rows per statement within a chunk of a filtered deletion: its time is checked between them. */
const PART_ROWS = 16;
const MIN_CHUNK = 10;
const MAX_CHUNK = 2_000;

/** Rows in the next chunk, so that it takes about DELETE_CHUNK_MS. */
const nextChunk = (rows: number, ms: number): number => Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Math.round((rows * DELETE_CHUNK_MS) / Math.max(ms, 0.1)), rows * 2));

/**
 * The share of the time a deletion may hold the write lock while captures are being committed.
 * Every capture committed meanwhile waits for the chunk (a closed-loop client sends its next one
 * only after the answer): at a third of the time, captures under load ran at 0.55x of their rate
 * alone (the bench's readstall section).
 */
export const DELETE_SHARE_WHILE_CAPTURING = 0.1;
/**
 * The share while the event loop is saturated as well (capture-activity.ts, loopBusy): the
 * captures then need the machine, and the deletion's own CPU (its matches read, its pages
 * written) is taken from them. At a tenth, an 89,280-row delete on a million-row token took
 * captures at full speed to 0.83-0.87x of their rate alone (readstall bench, delete only).
 */
export const DELETE_SHARE_WHILE_BUSY = 0.04;

/** How hard the captures are pressing, as a deletion sees it between two chunks. */
export interface CapturePressure {
  /** Captures were committed since the last pause. */
  capturing: boolean;
  /** The event loop was saturated in its last sample. */
  busy: boolean;
}

/**
 * Pause after a chunk on a thread (`workMs`: the chunk's time holding the lock, and any reading
 * done for it). SQLite's busy handler polls (after 1, 2, 5, 10, 15 ms...): a capture writer that
 * found the lock taken sees it free only if it stays free until its next poll, which comes later
 * the longer the chunk held it. While captures are committed, the deletion keeps to
 * DELETE_SHARE_WHILE_CAPTURING of the time (DELETE_SHARE_WHILE_BUSY while they saturate the event
 * loop); otherwise it runs at about a third.
 */
export const pauseAfter = (workMs: number, pressure: CapturePressure = { capturing: false, busy: false }): number => {
  if (pressure.busy) return Math.max(4, giveWay(workMs, DELETE_SHARE_WHILE_BUSY));
  if (pressure.capturing) return Math.max(4, giveWay(workMs, DELETE_SHARE_WHILE_CAPTURING));
  return Math.max(4, 2 * workMs + 2);
};

/**
 * The pause between a deletion's chunks, wherever it runs: pauseAfter, as `activity` tells how the
 * captures press; it resolves to `going()` (false: stop, the store is closing).
 */
export function chunkPause(activity: CaptureActivity | undefined, going: () => boolean): ChunkPause {
  const capturing = commitWatch(activity);
  return (workMs) => new Promise((resolve) => setTimeout(() => resolve(going()), pauseAfter(workMs, { capturing: capturing(), busy: loopBusy(activity) })));
}

/**
 * Runs `fn` in an IMMEDIATE transaction (waiting for the write lock up front, busy_timeout) and
 * times it from the moment the lock is held: the chunk sizes follow the work, not the waits.
 */
function timedImmediate<T>(db: Database, fn: () => T): { value: T; ms: number } {
  db.exec('BEGIN IMMEDIATE');
  const t0 = performance.now();
  try {
    const value = fn();
    db.exec('COMMIT');
    return { value, ms: performance.now() - t0 };
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

/** Lets the event loop (and so the capture writer) run between two chunks. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Between two chunks, told how long the last one worked (held the write lock, and read the matches
 * it deletes): resolves to false when the deletion should stop (the store is closing).
 */
export type ChunkPause = (workMs: number) => Promise<boolean>;

/** Matches read per step, outside any write transaction. */
const READ_BATCH = 2_000;

/**
 * timedImmediate, tried again after a pause while the lock stays taken (past busy_timeout, or at
 * once with `lock`: on the event loop, SQLite's busy handler would sleep there); under heavy
 * capture load a polling waiter can keep missing it. A deletion waits, it does not fail. Null when
 * the pause says stop.
 */
async function lockedChunk<T>(db: Database, fn: () => T, pause: ChunkPause, lock: NoWait | null): Promise<{ value: T; ms: number } | null> {
  for (;;) {
    try {
      return lock ? lock.run(() => timedImmediate(db, fn)) : timedImmediate(db, fn);
    } catch (e) {
      if (!isBusy(e) || db.inTransaction) throw e;
      if (!(await pause(0))) return null;
    }
  }
}

/**
 * Where a walk through a filter's matches stands between two batches: after a trigram candidate's
 * rowid, or after a token index key. Plain data, so that a thread can hand it back and forth.
 */
export type MatchCursor = { driven: true; after: number } | { driven: false; sorting: number; seq: number };

export interface MatchBatch {
  seqs: number[];
  /** Where the next batch starts; null: there is none. */
  next: MatchCursor | null;
}

/**
 * A batch of a filter's matches' seqs, READ_BATCH at most, from `cursor` on (null: the first).
 * Through the trigram index when a term of the search drives it and the token's search index is
 * filled: its candidates in rowid order, each row checked, so a batch costs what it reads.
 * Otherwise the token index forward (keyset), with the filter's full-text terms as subqueries,
 * which SQLite evaluates whole for every statement: at a million requests, each batch of a
 * 90,000-match delete read the term's every entry again (54 µs a deleted row, against 2.4 through
 * the candidates). A walk begun through the candidates whose index went away since goes on from the
 * token's first key (what it deleted is gone).
 */
export function readMatches(read: Database, plans: FilterPlans, cursor: MatchCursor | null): MatchBatch {
  const w = pickFilter(read, plans);
  if (w === plans.indexed && plans.driven && (!cursor || cursor.driven)) {
    const { match, rows } = plans.driven;
    // A BigInt binds as an integer: FTS5 ignores a rowid bound that arrives as a float.
    const found = read
      .prepare<unknown[], number>(`SELECT request_text.rowid FROM ${DRIVEN} WHERE request_text MATCH ? AND request_text.rowid > ? AND ${rows.sql} ORDER BY request_text.rowid LIMIT ${READ_BATCH}`)
      .pluck()
      .all(match, BigInt(cursor?.driven ? cursor.after : 0), ...rows.params);
    return { seqs: found, next: found.length < READ_BATCH ? null : { driven: true, after: found.at(-1)! } };
  }
  const from = cursor && !cursor.driven ? cursor : { sorting: Number.MIN_SAFE_INTEGER, seq: 0 };
  const found = read
    .prepare<unknown[], { sorting: number; seq: number }>(`SELECT k.sorting AS sorting, k.seq AS seq FROM ${fromFor(w)} WHERE ${w.sql} AND (k.sorting, k.seq) > (?, ?) ORDER BY k.sorting, k.seq LIMIT ${READ_BATCH}`)
    .all(...w.params, from.sorting, from.seq);
  const last = found.at(-1);
  return { seqs: found.map((f) => f.seq), next: last && found.length === READ_BATCH ? { driven: false, sorting: last.sorting, seq: last.seq } : null };
}

/** The batches of a filter's matches, one at a time, with how long each took to read; null when done. */
export type MatchSource = () => Promise<{ seqs: number[]; readMs: number } | null>;

/** Walks `plans`' matches with readMatches, batch after batch. `read` may be another thread's: see reader-pool.ts. */
export function matchSource(read: (cursor: MatchCursor | null) => Promise<MatchBatch & { ms: number }>): MatchSource {
  let cursor: MatchCursor | null = null;
  let done = false;
  return async () => {
    if (done) return null;
    const batch = await read(cursor);
    cursor = batch.next;
    done = cursor === null;
    return { seqs: batch.seqs, readMs: batch.ms };
  };
}

/** readMatches timed, on this thread's `read` connection. */
export function timedMatches(read: Database, plans: FilterPlans, cursor: MatchCursor | null): MatchBatch & { ms: number } {
  const t0 = performance.now();
  const batch = readMatches(read, plans, cursor);
  return { ...batch, ms: performance.now() - t0 };
}

/** deleteMatches with the matches read on `read` (may be `write`) on this thread. */
export const deleteMatching = (read: Database, write: Database, plans: FilterPlans, pause: ChunkPause): Promise<number> =>
  deleteMatches(
    write,
    plans,
    matchSource(async (cursor) => timedMatches(read, plans, cursor)),
    pause,
  );

/**
 * Deletes the requests matching a planned filter. The matches come from `matches` (the search's
 * cost holds no lock: readMatches), then are deleted by seq on `write` in short transactions (seqs
 * are never reused: AUTOINCREMENT), each taking its count off the token's counter; the latest
 * request is refreshed at the end. With `lock`, the write lock is taken without waiting (`write` is
 * the event loop's connection). Returns how many were deleted.
 */
export async function deleteMatches(write: Database, plans: FilterPlans, matches: MatchSource, pause: ChunkPause, lock: NoWait | null = null): Promise<number> {
  const tokenId = plans.indexed.tokenId;
  // Their keys go with them (trigger requests_gone), which lists a search-indexed request's
  // full-text entry for the purge (migration 24); each chunk purges as many listed entries as it
  // deleted requests (with FTS5's merges off, about 10 µs each: fts-writes.ts), here rather than in
  // the catch-up.
  const delSeqs = write.prepare('DELETE FROM requests WHERE seq IN (SELECT value FROM json_each(?)) AND token_id = ?');
  const dropCount = write.prepare('UPDATE tokens SET request_count = max(request_count - ?, 0) WHERE uuid = ?');
  const refreshLatest = write.prepare(`UPDATE tokens SET
      latest_request_id = (SELECT r.uuid FROM ${KEYED} WHERE k.token_number = tokens.number ORDER BY k.sorting DESC, k.seq DESC LIMIT 1),
      latest_request_at = (SELECT r.created_at FROM ${KEYED} WHERE k.token_number = tokens.number ORDER BY k.sorting DESC, k.seq DESC LIMIT 1)
    WHERE uuid = @t`);
  /**
   * Deletes `seqs` PART_ROWS at a time until DELETE_CHUNK_MS have passed: the chunk's size is a
   * guess from the last one, and a chunk that meets cold pages (every capture commit on another
   * connection empties this one's page cache) or a busy machine ran 10-60 times longer than meant,
   * every capture waiting behind it (up to 264 ms measured at a million rows). Returns how many
   * were deleted and how many of `seqs` were taken.
   */
  const step = (seqs: number[]): { deleted: number; taken: number } => {
    const t0 = performance.now();
    let deleted = 0;
    let taken = 0;
    while (taken < seqs.length) {
      deleted += delSeqs.run(JSON.stringify(seqs.slice(taken, taken + PART_ROWS)), tokenId).changes;
      taken = Math.min(seqs.length, taken + PART_ROWS);
      if (performance.now() - t0 >= DELETE_CHUNK_MS) break;
    }
    if (deleted) {
      dropCount.run(deleted, tokenId);
      purgeStaleText(write, deleted);
    }
    return { deleted, taken };
  };
  let deleted = 0;
  let chunk = FIRST_CHUNK;
  const finish = async (): Promise<number> => {
    if (deleted) await lockedChunk(write, () => refreshLatest.run({ t: tokenId }), pause, lock);
    return deleted;
  };
  for (;;) {
    const batch = await matches();
    if (!batch) return finish();
    // Reading the matches is the deletion's work too: the first chunk's pause makes up for it.
    let readMs = batch.readMs;
    const found = batch.seqs;
    for (let i = 0; i < found.length;) {
      const seqs = found.slice(i, i + chunk);
      const done = await lockedChunk(write, () => step(seqs), pause, lock);
      if (!done) return finish();
      const { value, ms } = done;
      deleted += value.deleted;
      i += value.taken;
      chunk = nextChunk(value.taken, ms);
      if (!(await pause(ms + readMs))) return finish();
      readMs = 0;
    }
  }
}

/**
 * Deletes a token's indexed requests (their keys and files go with them), before the token itself
 * is deleted with the few left; full-text entries are purged as in deleteMatching. Returns how many.
 */
export async function deleteTokenRequests(db: Database, tokenId: string, pause: ChunkPause, lock: NoWait | null = null): Promise<number> {
  const delChunk = db.prepare(`DELETE FROM requests WHERE seq IN (SELECT seq FROM request_keys WHERE token_number = ${tokenNumberOf('?')} LIMIT ?)`);
  const step = (rows: number): number => {
    const n = delChunk.run(tokenId, rows).changes;
    if (n) purgeStaleText(db, n);
    return n;
  };
  let deleted = 0;
  let chunk = FIRST_CHUNK;
  for (;;) {
    const rows = chunk;
    const done = await lockedChunk(db, () => step(rows), pause, lock);
    if (!done) return deleted;
    const { value: n, ms } = done;
    deleted += n;
    if (n < chunk || !(await pause(ms))) return deleted;
    chunk = nextChunk(n, ms);
  }
}

/**
 * What deleteTokenRequests left of a token's requests, deleted in the caller's transaction (the
 * token's own deletion, so that no capture lands between): those indexed since, those not caught up
 * yet (past the watermark), and the rows of trimmed requests the sweep has not reached (migration
 * 26). Requests do not cascade from tokens (migration 12); their keys, UUID entries and files go
 * with them (trigger requests_gone).
 */
export function tokenLeftovers(db: Database): (tokenId: string) => void {
  const indexed = db.prepare(`DELETE FROM requests WHERE seq IN (SELECT seq FROM request_keys WHERE token_number = ${tokenNumberOf('?')})`);
  const pending = db.prepare('DELETE FROM requests WHERE seq > (SELECT seq FROM request_watermark) AND token_id = ?');
  const trimmed = db.prepare('DELETE FROM requests WHERE seq IN (SELECT seq FROM request_trimmed) AND token_id = ?');
  return (tokenId) => {
    indexed.run(tokenId);
    pending.run(tokenId);
    trimmed.run(tokenId);
  };
}
