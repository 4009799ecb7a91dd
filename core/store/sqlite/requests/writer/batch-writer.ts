// The capture write path's group commit and catch-up transaction: ONE implementation, used on the main connection for
// ':memory:' databases and on the writer worker's own connection for files (writer-worker.ts).
// It imports nothing but types and the engine modules it runs (columns.ts, capture-activity.ts,
// trims.ts, token-number.ts, search/index-writes.ts, search/text-purge.ts, which import nothing else), so the
// worker can load it without the rest of the store. The schedule is catch-up-schedule.ts.
//
// A commit stores plain rows; catchUp() later gives the rows past the watermark their per-token
// bookkeeping in bulk: their index entries (request_keys by token, request_ids by UUID), the
// token's counters and latest request, trimming. Done per capture, that bookkeeping dirtied a page
// of each index and one of the tokens table per token in every commit: with many tokens receiving
// at once, most of the WAL written.
import type { Database } from 'better-sqlite3';
import { insertSql, PLAIN_COLUMNS, SORTING, TOKEN, UUID } from '../columns.js';
import { noteCommit, type CaptureActivity } from '../capture-activity.js';
import { searchIndexWrites } from '../search/index-writes.js';
import { textPurge, TEXT_PURGE_MS } from '../search/text-purge.js';
import { createTrims, TRIMMED_BACKLOG } from './trims.js';
import { isBusy, noWait } from '../no-wait.js';
import { nextRun, rowPlaceholders, statementsByRun } from '../statement-runs.js';

/**
 * One capture to store: its `requests` row (columns.ts, toRow: the INSERT's parameters, JSON columns already
 * serialized, so it crosses to the writer thread as flat strings, numbers and bytes: batch-codec.ts),
 * its token's request_limit, its uploaded files.
 */
export interface WriteItem {
  row: unknown[];
  limit: number;
  files?: ReadonlyMap<string, Uint8Array>;
}

/** The most plain rows one INSERT takes (its bound values: PLAIN_RUN x the plain row's columns). */
const PLAIN_RUN = 32;

/** The most rows the log of commits not caught up keeps (a bound on memory; past it, they are read back). */
const MAX_LOGGED = 200_000;

/** The most keys one INSERT of request_keys from the writer's values takes (its bound values: 3 per key). */
const KEY_RUN = 32;

/** The most tokens one UPDATE of their counters takes (its bound values: 3 per token). */
const TOKEN_RUN = 64;

/** Tokens the writer remembers as existing (a bound on memory; past it, they are looked up again). */
const MAX_ALIVE = 100_000;

/** Captures of one token not caught up yet: how many, the newest one's seq, and the request_limit it came with (when known). */
interface Tally {
  added: number;
  latest: number;
  limit?: number;
}

/**
 * One commit not caught up yet: its last seq, and its rows' tokens and sorting keys in order (its
 * rows have consecutive seqs, the last one `to`). Only the tokens, which the token cache's records
 * already hold, and the keys in one typed array: a row's UUID or time kept here would live until
 * the catch-up, long enough to be copied by every young-generation GC in between (the newest row's
 * are read back by seq instead).
 */
interface Committed {
  to: number;
  tokens: string[];
  sortings: Float64Array;
  /** Each row's request_limit as its capture saw its token. */
  limits: Float64Array;
  /** token_deletions.n as the commit saw it: while it still is, every token of its rows exists. */
  deletions: number;
}

/** Per item of a batch: null when committed, else why it was not. */
export type WriteOutcome = null | { gone: true } | { gone: false; error: unknown };

export interface BatchWriter {
  /**
   * Stores the batch in one transaction (one bad item does not lose the others: the batch is then
   * retried one by one). Returns one outcome per item, in order; throws nothing. The rows are
   * pending: durable and readable by UUID (reads look among the pending rows too), but not yet in
   * the indexes (request_keys, request_ids), their token's counters or trimming. That is catchUp's
   * work, done in bulk.
   *
   * With `wait` false (the event loop's writer: it must not sleep in SQLite's busy handler), the
   * transaction is tried without waiting for the write lock: while another connection holds it,
   * the outcomes stop short, and the items from outcomes.length on were not stored (to try again).
   */
  commit(batch: WriteItem[], wait?: boolean): WriteOutcome[];
  /**
   * Indexes the pending rows (by token, by UUID), adds them to their tokens' counters and latest
   * request, and trims each token to its request_limit, in one transaction. Returns how many rows
   * it took; with `wait` false, null when another connection holds the write lock. With `maxRows`,
   * only the oldest maxRows pending rows (caughtUp tells whether that was all). With `trimLater`,
   * the tokens it puts over their limit are left to trim() (trimsDue), and so is any left by an
   * earlier one; without, they are trimmed in its transaction. With `trimLater`, a catch-up that
   * takes every pending row still trims up to `lastTrims` requests in its transaction (lastCatchUp
   * says how many): the trims' pages of each token's index and of `tokens` are those it has just
   * written, written once rather than again by a trim() of their own.
   */
  catchUp(wait?: boolean, maxRows?: number, trimLater?: boolean, lastTrims?: number): number | null;
  /**
   * Trims tokens a catch-up left over their request_limit (trimsDue), at most `maxRows` requests,
   * oldest first, in a transaction of its own. Returns how many it deleted; with `wait` false,
   * null when another connection holds the write lock.
   */
  trim(wait?: boolean, maxRows?: number): number | null;
  /** Whether tokens wait for trim(). */
  readonly trimsDue: boolean;
  /** How many tokens wait for trim(). */
  readonly tokensOverLimit: number;
  /**
   * A token's request_limit was set: it waits for trim() (trimsDue) down to `limit`, which takes
   * the trimmed requests out of every read and leaves their rows to sweep() (trims.ts).
   */
  trimTo(tokenId: string, limit: number): void;
  /** Whether rows of a lowered token's trimmed requests wait for sweep() (no read waits for it). */
  readonly sweepDue: boolean;
  /**
   * Deletes at most `maxRows` rows of lowered tokens' trimmed requests, oldest first, in a
   * transaction of its own. Returns how many; with `wait` false, null when another connection
   * holds the write lock.
   */
  sweep(wait?: boolean, maxRows?: number): number | null;
  /** Whether the last catch-up took every pending row (false: maxRows stopped it short). */
  readonly caughtUp: boolean;
  /**
   * Whether requests of search-indexed tokens wait for index() (a chunked catch-up's steps defer
   * them: search/index-writes.ts defer). They are not caught up (caughtTo) until then.
   */
  readonly indexDue: boolean;
  /**
   * Indexes deferred requests, whole tokens at a time, at least `maxRows` (indexDue), in a
   * transaction of its own. Returns how many; with `wait` false, null when another connection
   * holds the write lock.
   */
  index(wait?: boolean, maxRows?: number): number | null;
  /** The connection's busy_timeout (ms): how long a waiting transaction waits for the lock. */
  readonly busyTimeoutMs: number;
  /** Where the last catch-up's time went (diagnostics: scripts/measure-catchup.ts). */
  readonly lastCatchUp: CatchUpParts;
  /**
   * Whether a token's search index waits to be filled (search_tokens): each whole catch-up fills
   * FILL_ROWS more, and the schedule keeps catching up until none is left.
   */
  readonly filling: boolean;
  /** The watermark the last catch-up left (0: none yet): every row up to it is caught up. */
  readonly caughtTo: number;
  /** The rows the catch-ups took (0: none yet), their requests waiting for an index step or not. */
  readonly takenTo: number;
  /** The newest row's seq, whoever committed it (a read waits for the rows up to it: sync). */
  newestSeq(): number;
  /**
   * True when no row of `tokenId` waits for a catch-up, as far as this writer can tell: it knows
   * every row pending (its own commits since a whole catch-up, none by another connection since)
   * and none is the token's. False when it cannot tell.
   */
  nonePendingFor(tokenId: string): boolean;
  /** Whether the last purge of request_text stopped at its time budget (more is due soon). */
  readonly purging: boolean;
  /** A token was listed in search_tokens on some connection: look for fills again. */
  fillWanted(): void;
  /** Whether the connection is open (a schedule stops once it is closed). */
  readonly open: boolean;
}

/** A catch-up's rows and milliseconds per part. */
export interface CatchUpParts {
  rows: number;
  keys: number;
  ids: number;
  /** The search index's keys and text (search_keys, request_text), for the tokens in search_tokens. */
  text: number;
  purge: number;
  /** Filling a token's search index (search_tokens.fill_sorting). */
  fill: number;
  /** The trims in the catch-up's transaction (the tokens' counters, bumped before them, are in no part). */
  trims: number;
  /** Requests the catch-up trimmed in its transaction. */
  trimmed: number;
}

export interface BatchWriterOptions {
  /** The purge's time budget per catch-up (TEXT_PURGE_MS). */
  purgeMs?: number;
  /** Counts each committed batch, for bulk deletions to give way to (capture-activity.ts). */
  activity?: CaptureActivity;
  /** Rows of trimmed requests left for the sweep (TRIMMED_BACKLOG). */
  trimmedBacklog?: number;
}

export function createBatchWriter(db: Database, { purgeMs = TEXT_PURGE_MS, activity, trimmedBacklog = TRIMMED_BACKLOG }: BatchWriterOptions = {}): BatchWriter {
  // The catch-up's and the trims' statements each change pages of several tables and indexes: the
  // journal that lets one of them roll back alone (SQLite's statement journal) spills to a
  // temporary file past 64 KiB, a write() per page, unless temporary storage is in memory. It is
  // bounded by the pages one statement changes (the catch-up's sorts too: a catch-up's rows).
  db.pragma('temp_store = MEMORY');
  const insert = db.prepare(insertSql(false));
  // Plain rows (most captures) go in by runs, up to PLAIN_RUN rows a statement: a statement's
  // fixed cost (its call, the AUTOINCREMENT counter read and written back) is paid once a run.
  // OR FAIL: a statement of several rows that may stop half-way otherwise copies every page it
  // changes into a statement journal, to roll back alone, in blocks whose malloc makes glibc
  // consolidate its small free chunks each time (1 µs a capture, measured); a failed statement
  // fails the whole transaction anyway, which commit() then retries capture by capture.
  const plainRun = statementsByRun(db, (rows) => insertSql(true, rows, true));
  /**
   * A statement's values, flat, each passed as an argument of its own: better-sqlite3 binds an
   * argument at once, but reads an array argument's values one by one through V8's generic
   * property lookup, which cost more than the binding (0.3-0.4 µs a row of 18 values).
   */
  const runValues: unknown[] = [];
  /** Inserts `rows` (plain rows, in order) in statements of 32, 16, ... 1 rows; returns the last one's seq. */
  function insertPlain(rows: unknown[][]): number | bigint {
    let last: number | bigint = 0;
    for (let i = 0; i < rows.length;) {
      const n = nextRun(rows.length - i, PLAIN_RUN);
      for (let r = i; r < i + n; r++) for (const value of rows[r]!) runValues.push(value);
      try {
        last = plainRun(n).run(...runValues).lastInsertRowid;
      } finally {
        // Not kept past the statement (rows held meanwhile are copied by every young-generation
        // GC), nor past a failed one: the next statement would get its values too.
        runValues.length = 0;
      }
      i += n;
    }
    return last;
  }
  const insertFile = db.prepare('INSERT INTO request_files (request_uuid, file_id, data) VALUES (?, ?, ?)');
  // A token's number (token-number.ts): undefined when the token does not exist.
  const tokenNumber = db.prepare<[string], number | null>('SELECT number FROM tokens WHERE uuid = ?').pluck();
  const deletions = db.prepare<[], number>('SELECT n FROM token_deletions').pluck();
  const watermark = db.prepare<[], { seq: number }>('SELECT seq FROM request_watermark');
  const newest = db.prepare<[], number | null>('SELECT max(seq) FROM requests').pluck();
  const pending = db.prepare<[number, number], { seq: number; token_id: string }>('SELECT seq, token_id FROM requests WHERE seq > ? ORDER BY seq LIMIT ?');
  // In key order, so that consecutive inserts land on the same leaf page of request_keys. Keyed by
  // the token's number (token-number.ts), looked up per row: a deleted token's rows get no key.
  // OR FAIL: a statement that changes many pages would otherwise copy each into a statement
  // journal first, to roll back alone; here any failure rolls the whole catch-up back anyway.
  const addKeys = db.prepare(
    'INSERT OR FAIL INTO request_keys (token_number, sorting, seq) SELECT t.number, r.sorting, r.seq FROM requests r CROSS JOIN tokens t ON t.uuid = r.token_id WHERE r.seq > ? AND r.seq <= ? ORDER BY t.number, r.sorting, r.seq',
  );
  // The same keys from the values the writer holds (loggedKeys), KEY_RUN keys a statement.
  const keyRun = statementsByRun(db, (keys) => `INSERT OR FAIL INTO request_keys (token_number, sorting, seq) VALUES ${rowPlaceholders(keys, 3)}`);
  const search = searchIndexWrites(db);
  const text = textPurge(db, purgeMs);
  // Tokens a catch-up put over their limit, and their trimming (trims.ts).
  const trims = createTrims(db, trimmedBacklog, () => text.due());
  const { overLimit, trimOver, trimTo } = trims;
  // Deleted after its captures were stored: they go with it (the step's rows of it, which got no key).
  const dropOrphans = db.prepare<[number, number, string]>('DELETE FROM requests WHERE seq > ? AND seq <= ? AND token_id = ?');
  // The UUID index (reads by UUID), in seq order: new UUIDs (v7, time-ordered) land at its end
  // all the same, only those of one millisecond out of order among themselves, and an index's
  // pages split alike either way (no append fast path as a rowid table's), so sorting them first
  // only cost (in-process, 0.10-0.17 µs a row, the same pages). OR FAIL as addKeys.
  const addIds = db.prepare('INSERT OR FAIL INTO request_ids (uuid, seq) SELECT uuid, seq FROM requests WHERE seq > ? AND seq <= ?');
  // OR FAIL, as the statements after the search index's inserts (search/index-writes.ts): a
  // statement journal would make FTS5 write out the catch-up's text inside it, each page copied.
  const setWatermark = db.prepare('UPDATE OR FAIL request_watermark SET seq = ?');
  // The tokens' counters and latest request, up to TOKEN_RUN tokens a statement (a statement's
  // call and its page reads are paid once a run, not once a token): each bumped token's row comes
  // back with its new count and stored limit; a deleted token's none. The latest request is read
  // by its seq from the rows the step just indexed (their pages in the cache); a row deleted
  // meanwhile, or not the token's, leaves the token's latest as it was.
  const bumpRun = statementsByRun(
    db,
    (tokens) =>
      `UPDATE OR FAIL tokens SET request_count = request_count + v.column2, latest_request_id = coalesce(r.uuid, latest_request_id), latest_request_at = coalesce(r.created_at, latest_request_at)
       FROM (VALUES ${rowPlaceholders(tokens, 3)}) AS v LEFT JOIN requests AS r ON r.seq = v.column3 AND r.token_id = v.column1 WHERE tokens.uuid = v.column1 RETURNING tokens.uuid, request_count, request_limit`,
    { raw: true },
  );
  /** Bumps the tokens of `touched`; their limits go over to overLimit, a deleted token's rows go. */
  function bumpTokens(touched: Map<string, Tally>, from: number, to: number): void {
    const values: unknown[] = [];
    let bumped = 0;
    let left = touched.size;
    for (const [tokenId, { added, latest }] of touched) {
      values.push(tokenId, added, latest);
      if (values.length < 3 * Math.min(TOKEN_RUN, left)) continue;
      const n = values.length / 3;
      for (const [uuid, count, stored] of bumpRun(n).all(...values) as [string, number, number][]) {
        bumped++;
        // The limit its captures came with, or the token's now if lower (set since: trimTo).
        const limit = Math.min(touched.get(uuid)?.limit ?? limits.get(uuid) ?? Number.MAX_SAFE_INTEGER, stored);
        if (count > limit) overLimit.set(uuid, limit);
      }
      left -= n;
      values.length = 0;
    }
    // Deleted after its captures were stored: they go with it.
    if (bumped < touched.size) for (const tokenId of touched.keys()) if (tokenNumber.get(tokenId) === undefined) dropOrphans.run(from, to, tokenId);
    // A chunk's token may have rows in the next chunks, which trim to the same limit.
    if (whole) for (const tokenId of touched.keys()) limits.delete(tokenId);
  }

  /**
   * The request_limit each token's captures came with (the token as the capture saw it) while the
   * log does not keep it (unknown); a catch-up after a restart, which has none, uses the token's
   * stored limit.
   */
  const limits = new Map<string, number>();
  /**
   * Tokens known to exist as of `deletionsSeen` (token_deletions.n), with their numbers: valid
   * across batches until a token is deleted, by this connection or another.
   */
  const alive = new Map<string, number | null>();
  let deletionsSeen = -1;

  /**
   * What this writer committed and no catch-up took yet, oldest commit first: a catch-up, or a step
   * of one, takes whole commits from the front and need not read those rows back. Trusted only when
   * it accounts for every key the catch-up makes (a pending row deleted meanwhile, or written by
   * another process, and the rows are read instead); unknown (null) until a catch-up has read every
   * row that was pending.
   */
  let log: Committed[] | null = null;
  /** The log's rows. */
  let loggedRows = 0;
  /** The log's commits the running catch-up took (dropped from it once committed), per token. */
  let taken = 0;
  let tookTally: Map<string, Tally> | null = null;
  /** What the running transaction stored (no object per row: this is the capture hot path), and its last seq. */
  let staged: WriteItem[] = [];
  let stagedTo = 0;

  const store = db.transaction((batch: WriteItem[]) => {
    const outcomes: WriteOutcome[] = [];
    staged = [];
    let last: number | bigint = 0;
    const n = deletions.get()!;
    if (n !== deletionsSeen || alive.size > MAX_ALIVE) {
      alive.clear();
      deletionsSeen = n;
    }
    /** Plain rows not inserted yet: inserted, in order, before any other row or file. */
    const plain: unknown[][] = [];
    for (const p of batch) {
      const tokenId = p.row[TOKEN] as string;
      if (!alive.has(tokenId)) {
        const number = tokenNumber.get(tokenId);
        // The token was deleted while this capture was on its way.
        if (number === undefined) {
          outcomes.push({ gone: true });
          continue;
        }
        alive.set(tokenId, number);
      }
      if (p.row.length === PLAIN_COLUMNS) plain.push(p.row);
      else {
        // The plain rows before this one keep their order; its own insert gives the latest seq.
        if (plain.length) (insertPlain(plain), (plain.length = 0));
        last = insert.run(...p.row).lastInsertRowid;
      }
      if (p.files) {
        if (plain.length) ((last = insertPlain(plain)), (plain.length = 0));
        for (const [id, data] of p.files) insertFile.run(p.row[UUID], id, data);
      }
      staged.push(p);
      outcomes.push(null);
    }
    if (plain.length) last = insertPlain(plain);
    stagedTo = Number(last);
    return outcomes;
  });

  /**
   * Adds what a committed transaction stored (`staged`, up to seq `stagedTo`) to the log, or while
   * the log is unknown, its limits to `limits`. No Map is touched per capture while there is a
   * log: the catch-up tallies the rows per token anyway (tallyOf).
   */
  function count(): void {
    if (!staged.length) return;
    if (!log) {
      for (const p of staged) limits.set(p.row[TOKEN] as string, p.limit);
      staged = [];
      return;
    }
    const tokens: string[] = [];
    const sortings = new Float64Array(staged.length);
    const rowLimits = new Float64Array(staged.length);
    for (let i = 0; i < staged.length; i++) {
      const p = staged[i]!;
      tokens.push(p.row[TOKEN] as string);
      sortings[i] = p.row[SORTING] as number;
      rowLimits[i] = p.limit;
    }
    log.push({ to: stagedTo, tokens, sortings, limits: rowLimits, deletions: deletionsSeen });
    loggedRows += staged.length;
    // Let go of the rows now, not at the next commit: rows held meanwhile (bodies, their settled
    // captures) are copied by every young-generation GC until then.
    staged = [];
    // Catch-ups failing for long (the write lock held elsewhere): the rows are read back instead.
    if (loggedRows > MAX_LOGGED) unlog();
  }

  /** The log no longer accounts for what is pending: unknown until a whole catch-up (its limits kept). */
  function unlog(): void {
    for (const { tokens, limits: rowLimits } of log ?? []) for (let i = 0; i < tokens.length; i++) limits.set(tokens[i]!, rowLimits[i]!);
    log = null;
    loggedRows = 0;
  }

  /** Whether a row of the log is `tokenId`'s (reads ask: a scan, rather than a count per capture). */
  function logs(tokenId: string): boolean {
    for (const c of log!) if (c.tokens.includes(tokenId)) return true;
    return false;
  }

  /** The log's first `n` commits, per token. */
  function tallyOf(n: number): Map<string, Tally> {
    const out = new Map<string, Tally>();
    for (let c = 0; c < n; c++) {
      const { to, tokens, limits: rowLimits } = log![c]!;
      const first = to - tokens.length + 1;
      for (let i = 0; i < tokens.length; i++) {
        const t = out.get(tokens[i]!);
        if (t) {
          t.added++;
          t.latest = first + i;
          t.limit = rowLimits[i]!;
        } else out.set(tokens[i]!, { added: 1, latest: first + i, limit: rowLimits[i]! });
      }
    }
    return out;
  }

  /** The pending rows up to seq `to` read back: per token, how many and the newest; and the last seq. */
  function readPending(from: number, to: number, limit = Number.MAX_SAFE_INTEGER): { touched: Map<string, Tally>; last: number; rows: number } {
    const out = new Map<string, Tally>();
    let last = from;
    let rows = 0;
    for (const r of pending.iterate(from, limit)) {
      if (r.seq > to) break;
      last = r.seq;
      rows++;
      const t = out.get(r.token_id);
      if (t) {
        t.added++;
        t.latest = r.seq;
      } else out.set(r.token_id, { added: 1, latest: r.seq });
    }
    return { touched: out, last, rows };
  }

  /**
   * The keys of the log's first `n` commits, from the values the writer holds, in key order: token
   * number, sorting, seq, flat. Their rows are the seqs after `from`, of which `stored` are in the
   * table. Null when the log cannot vouch for them: a token deleted since the oldest of them was
   * committed (its rows get no key), another connection's rows among them (the commits do not tile
   * the range), one of them deleted (fewer stored), a token's number not known.
   */
  function loggedKeys(from: number, n: number, stored: number): number[] | null {
    const commits = log!;
    if (deletions.get() !== commits[0]!.deletions) return null;
    let at = from;
    let rows = 0;
    for (let c = 0; c < n; c++) {
      const { to: last, tokens } = commits[c]!;
      if (last - tokens.length !== at) return null;
      at = last;
      rows += tokens.length;
    }
    if (stored !== rows) return null;
    // Per token number: sorting and seq of each of its rows, in seq order.
    const byToken = new Map<number, number[]>();
    for (let c = 0; c < n; c++) {
      const { to: last, tokens, sortings } = commits[c]!;
      const first = last - tokens.length + 1;
      for (let i = 0; i < tokens.length; i++) {
        const number = alive.get(tokens[i]!);
        if (number == null) return null;
        let pairs = byToken.get(number);
        if (!pairs) byToken.set(number, (pairs = []));
        pairs.push(sortings[i]!, first + i);
      }
    }
    // In key order when each token's sorting keys grow with its seqs, as the clock gives them
    // (time.ts, createSortingKeys); any order stores the same keys, on pages visited less in turn.
    const keys: number[] = [];
    for (const number of [...byToken.keys()].sort((x, y) => x - y)) {
      const pairs = byToken.get(number)!;
      for (let i = 0; i < pairs.length; i += 2) keys.push(number, pairs[i]!, pairs[i + 1]!);
    }
    return keys;
  }

  /** Inserts `keys` (loggedKeys) by runs of KEY_RUN, 16, ... 1 keys; returns how many. */
  function insertKeys(keys: number[]): number {
    const total = keys.length / 3;
    for (let i = 0; i < total;) {
      const n = nextRun(total - i, KEY_RUN);
      keyRun(n).run(...(n === total ? keys : keys.slice(3 * i, 3 * (i + n))));
      i += n;
    }
    return total;
  }

  const parts: CatchUpParts = { rows: 0, keys: 0, ids: 0, text: 0, purge: 0, fill: 0, trims: 0, trimmed: 0 };
  /** Whether the running (last) catch-up takes every pending row. */
  let whole = true;
  /** The watermark as the last catch-up left it (0: none yet). */
  let caughtTo = 0;
  /** The catch-up's trims in its transaction: all of them, or with trimLater up to lastTrims once it took every pending row. */
  const trimsOf = (trimLater: boolean, lastTrims: number) => (parts.trimmed = !trimLater ? trimOver(Number.MAX_SAFE_INTEGER) : whole && lastTrims > 0 ? trimOver(lastTrims) : 0);
  const catchUp = db.transaction((maxRows: number, trimLater: boolean, lastTrims: number): number => {
    let t = performance.now();
    const lap = () => -t + (t = performance.now());
    const from = watermark.get()!.seq;
    let touched: Map<string, Tally>;
    let to = from;
    whole = true;
    taken = 0;
    if (log) {
      // The oldest commits, up to maxRows rows: one that goes past it is split, its rows having
      // consecutive seqs (a gap would only make the keys differ from the log: then they are read).
      let rows = 0;
      while (taken < log.length && rows < maxRows) {
        const c = log[taken]!;
        const n = c.tokens.length;
        const k = maxRows - rows;
        if (n > k)
          log.splice(
            taken,
            1,
            { ...c, to: c.to - (n - k), tokens: c.tokens.slice(0, k), sortings: c.sortings.subarray(0, k), limits: c.limits.subarray(0, k) },
            { ...c, tokens: c.tokens.slice(k), sortings: c.sortings.subarray(k), limits: c.limits.subarray(k) },
          );
        rows += log[taken++]!.tokens.length;
      }
      whole = taken === log.length;
      if (taken) to = log[taken - 1]!.to;
      touched = tookTally = tallyOf(taken);
    } else {
      let rows: number;
      ({ touched, last: to, rows } = readPending(from, Number.MAX_SAFE_INTEGER, maxRows));
      whole = rows < maxRows;
    }
    parts.rows = parts.keys = parts.ids = parts.text = parts.purge = parts.fill = parts.trims = parts.trimmed = 0;
    // A catch-up that is not chunked (wait, or no maxRows) indexes what chunked ones deferred first.
    if (maxRows === Number.MAX_SAFE_INTEGER && search.pendingFrom) search.addPending(Number.MAX_SAFE_INTEGER);
    if (to <= from) {
      caughtTo = Math.max(caughtTo, from);
      if (whole && text.purging) text.purge();
      parts.purge = lap();
      if (whole && search.filling && !search.pendingFrom) search.fillStep();
      parts.fill = lap();
      trimsOf(trimLater, lastTrims);
      parts.trims = lap();
      return 0;
    }
    // The UUID index first: how many rows it took tells loggedKeys whether every row of the log is there.
    const stored = addIds.run(from, to).changes;
    parts.ids = lap();
    const known = log && taken ? loggedKeys(from, taken, stored) : null;
    const keys = known ? insertKeys(known) : addKeys.run(from, to).changes;
    let expected = 0;
    for (const t of touched.values()) expected += t.added;
    if (keys !== expected) {
      // Read back: the limits the log kept go with them.
      const read = readPending(from, to).touched;
      for (const [tokenId, t] of read) t.limit = touched.get(tokenId)?.limit;
      touched = read;
    }
    parts.rows = keys;
    parts.keys = lap();
    // The log's tokens are every row's when it vouched for the keys (known). A chunked catch-up's
    // steps leave the search index to index steps (search.defer, index()): each takes whole
    // tokens' deferred requests at once. Once some are deferred, later ones are too, so that a
    // token's newest request is indexed last (search.defer).
    const deferSearch = trimLater && (!whole || search.pendingFrom > 0);
    (deferSearch ? search.defer : search.addRange)(from, to, known ? { tokens: touched.keys(), keys: known } : undefined);
    setWatermark.run(to);
    caughtTo = to;
    parts.text = lap();
    // Once per catch-up (its last chunk).
    if (whole) text.purge();
    parts.purge = lap();
    // Not while requests wait for index steps: a fill's requests (OR IGNORE) would make theirs fail.
    if (whole && search.filling && !deferSearch && !search.pendingFrom) search.fillStep();
    parts.fill = lap();
    bumpTokens(touched, from, to);
    lap();
    trimsOf(trimLater, lastTrims);
    parts.trims = lap();
    return keys;
  });

  /** Drops the log's first `n` commits (caught up; `tally`: theirs, per token). */
  function forget(n: number, tally: Map<string, Tally>): void {
    for (const { added } of tally.values()) loggedRows -= added;
    log!.splice(0, n);
  }

  // IMMEDIATE: take the write lock up front (waiting through busy_timeout), so another connection
  // writing the same file can never make these transactions fail half-way with SQLITE_BUSY.
  const storeTx = store.immediate;
  const catchUpTx = catchUp.immediate;
  /**
   * Runs a transaction that changes overLimit, and puts overLimit back as it was when the
   * transaction fails (rolled back): a token whose trim was rolled back stays listed.
   */
  function keepingOverLimit<T>(tx: () => T): T {
    const before = [...overLimit];
    try {
      return tx();
    } catch (e) {
      overLimit.clear();
      for (const [tokenId, limit] of before) overLimit.set(tokenId, limit);
      throw e;
    }
  }
  const trimTx = db.transaction((maxRows: number): number => {
    const t0 = performance.now();
    parts.rows = parts.keys = parts.ids = parts.text = parts.purge = parts.fill = 0;
    const n = (parts.trimmed = trimOver(maxRows));
    parts.trims = performance.now() - t0;
    return n;
  }).immediate;
  const sweepTx = db.transaction((maxRows: number): number => trims.sweepLowered(maxRows)).immediate;
  const indexTx = db.transaction((maxRows: number): number => search.addPending(maxRows)).immediate;
  /** `tx()`, with what it deferred to the search index or indexed of it applied once it committed (search.settle). */
  function settlingSearch<T>(tx: () => T | typeof BUSY): T | typeof BUSY {
    let result: T | typeof BUSY = BUSY;
    try {
      return (result = tx());
    } finally {
      search.settle(result !== BUSY);
    }
  }

  // Not waiting: busy_timeout 0 for the attempt only (the connection's other users keep theirs).
  const withoutWaiting = noWait(db);
  const { busyTimeoutMs } = withoutWaiting;
  /** `tx()`, or BUSY when it could not take the write lock at once (nothing was written: rolled back). */
  function attempt<T>(tx: () => T, wait: boolean): T | typeof BUSY {
    if (wait) return tx();
    try {
      return withoutWaiting.run(tx);
    } catch (e) {
      if (isBusy(e) && !db.inTransaction) return BUSY;
      throw e;
    }
  }

  return {
    busyTimeoutMs,
    lastCatchUp: parts,
    get filling() {
      return search.filling;
    },
    get purging() {
      return text.purging;
    },
    get caughtTo() {
      // Requests waiting for an index step are not caught up: a search would miss them.
      return search.pendingFrom ? Math.min(caughtTo, search.pendingFrom - 1) : caughtTo;
    },
    get takenTo() {
      return caughtTo;
    },
    newestSeq() {
      return newest.get() ?? 0;
    },
    nonePendingFor(tokenId) {
      if (!log || overLimit.has(tokenId) || logs(tokenId) || search.pendingFrom) return false;
      // Every seq after the watermark is a row of the log: none was committed by another
      // connection (another process on the file, a writer thread that fell back) since. A gap in
      // the seqs only makes this say no.
      return (newest.get() ?? 0) - caughtTo === loggedRows;
    },
    fillWanted() {
      search.fillWanted();
    },
    get open() {
      return db.open;
    },
    commit(batch, wait = true) {
      try {
        const outcomes = attempt(() => storeTx(batch), wait);
        if (outcomes === BUSY) return [];
        count();
        noteCommit(activity);
        return outcomes;
      } catch {
        // One bad record must not lose the others: retry one by one.
        const outcomes: WriteOutcome[] = [];
        for (const p of batch) {
          try {
            const outcome = attempt(() => storeTx([p])[0]!, wait);
            if (outcome === BUSY) break;
            count();
            noteCommit(activity);
            outcomes.push(outcome);
          } catch (e) {
            outcomes.push({ gone: false, error: e });
          }
        }
        return outcomes;
      }
    },
    get caughtUp() {
      return whole;
    },
    get trimsDue() {
      return overLimit.size > 0;
    },
    get tokensOverLimit() {
      return overLimit.size;
    },
    trimTo,
    get sweepDue() {
      return trims.sweepDue;
    },
    sweep(wait = true, maxRows = Number.MAX_SAFE_INTEGER) {
      const n = attempt(() => sweepTx(maxRows), wait);
      return n === BUSY ? null : n;
    },
    trim(wait = true, maxRows = Number.MAX_SAFE_INTEGER) {
      const n = attempt(() => keepingOverLimit(() => trimTx(maxRows)), wait);
      return n === BUSY ? null : n;
    },
    get indexDue() {
      return search.pendingFrom > 0;
    },
    index(wait = true, maxRows = Number.MAX_SAFE_INTEGER) {
      const n = settlingSearch(() => attempt(() => indexTx(maxRows), wait));
      return n === BUSY ? null : n;
    },
    catchUp(wait = true, maxRows = Number.MAX_SAFE_INTEGER, trimLater = false, lastTrims = 0) {
      const n = settlingSearch(() => attempt(() => keepingOverLimit(() => catchUpTx(maxRows, trimLater, lastTrims)), wait));
      if (n === BUSY) return null;
      // Caught up: from here on, the log accounts for everything pending. Stopped short, it
      // drops the commits taken, or stays unknown until a catch-up reads what is pending.
      if (whole) {
        log = [];
        loggedRows = 0;
      } else if (log && taken) forget(taken, tookTally!);
      return n;
    },
  };
}

const BUSY = Symbol('busy');
