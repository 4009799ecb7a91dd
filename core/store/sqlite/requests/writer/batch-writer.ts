// The capture write path's group commit: ONE implementation, used on the main connection for
// ':memory:' databases and on the writer worker's own connection for files (writer-worker.ts).
// It imports nothing but types, columns.ts, capture-activity.ts and fts-writes.ts (which import
// nothing), so the worker can load it without the rest of the store.
//
// A commit stores plain rows; catchUp() later gives the rows past the watermark their per-token
// bookkeeping in bulk: their index entries (request_keys by token, request_ids by UUID), the
// token's counters and latest request, trimming. Done per capture, that bookkeeping dirtied a page
// of each index and one of the tokens table per token in every commit: with many tokens receiving
// at once, most of the WAL written.
import type { Database } from 'better-sqlite3';
import type { CatchUpObserver } from '../../../types.js';
import { CREATED_AT, insertSql, PLAIN_COLUMNS, TOKEN, UUID } from '../columns.js';
import { noteCommit, type CaptureActivity } from '../capture-activity.js';
import { plainBody, purgeStaleText } from '../search/fts-writes.js';
import { isBusy, noWait } from '../no-wait.js';

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

/** Tokens the writer remembers as existing (a bound on memory; past it, they are looked up again). */
const MAX_ALIVE = 100_000;

/** Captures of one token not caught up yet: how many, the newest (UUID, created_at) and its seq. */
interface Tally {
  added: number;
  latest: string;
  latestAt: number;
  seq: number;
}

/**
 * How long a stored capture may wait for its catch-up when nobody asks for it. Longer is cheaper
 * per capture (each token's index page is written once per catch-up) but holds commits up longer
 * while it runs: 100 ms is ~4,000 captures at 40k/s, a catch-up of a few ms.
 */
const CATCH_UP_MS = 100;
/** Listed full-text entries of deleted requests a catch-up deletes at most (within TEXT_PURGE_MS). */
export const TEXT_PURGE_ROWS = 1_000;
/**
 * How long a catch-up may spend deleting the entries of deleted requests: it holds the event loop.
 * With FTS5's merges on, an entry cost about 0.45 ms and a catch-up after a 100,000-row delete spent
 * 0.5 s on it; with them off (fts-writes.ts), about 10 µs.
 */
export const TEXT_PURGE_MS = 4;

/** Requests each catch-up adds to the search index of a token being filled (about 25 ms). */
export const FILL_ROWS = 500;

/** What search_keys holds of a request, from its row (migrations 21-23). */
const SEARCH_KEY_COLUMNS = 'token_id, sorting, seq, method, type, ip, created_at, size, CASE WHEN length(note) > 0 THEN 1 END';
/** What search_rows holds of a request `r` of a listed token `t`: its seq, the token's number, whether its body is plain. */
const SEARCH_ROW_COLUMNS = `r.seq, t.tn, ${plainBody('r.body')}`;
/** What request_text holds of a request: its body as text, its headers' and its query string's JSON. */
const TEXT_COLUMNS = 'seq, CAST(body AS TEXT), headers, query';

/** Captures that make a catch-up due at once, whatever the time. */
const CATCH_UP_ROWS = 10_000;

/**
 * A chunked catch-up's aim per step (the event loop's writer): it holds the loop, and every capture
 * behind it, that long: 1,000-3,000 rows in one held it 80-300 ms (measure-catchup.ts). Shorter
 * steps cost more in all (each transaction writes every touched token's index pages and a text index
 * segment): with the trims in the same transaction, 10 ms took 65% more catch-up time than whole
 * catch-ups. With the trims in steps of their own, 12 ms against 25 (readstall at 200,000 rows, two
 * runs each) took the same share of the loop (16-18% against 16%) and lowered capture p99 from
 * 18-21 ms to 15-19.
 */
export const CATCH_UP_CHUNK_MS = 12;
/** A chunk's bounds in rows, whatever the measured cost per row. */
const CHUNK_MIN_ROWS = 64;
const CHUNK_FIRST_ROWS = 128;
/**
 * Rows of trimmed requests the sweep leaves listed (request_trimmed, migration 26): the newest
 * trimmed, which lie among requests still kept when the tokens at their limit trim at different
 * rates. Beyond them, the oldest listed lie together and are deleted a page at a time.
 */
export const TRIMMED_BACKLOG = 10_000;
/** A trim step's first size in requests (chunked), before its cost per request is measured. */
const TRIM_FIRST_ROWS = 1_000;
/** A chunk takes at least this share of the captures behind (1/n). */
const CHUNK_BACKLOG_SHARE = 4;

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
   * earlier one; without, they are trimmed in its transaction.
   */
  catchUp(wait?: boolean, maxRows?: number, trimLater?: boolean): number | null;
  /**
   * Trims tokens a catch-up left over their request_limit (trimsDue), at most `maxRows` requests,
   * oldest first, in a transaction of its own. Returns how many it deleted; with `wait` false,
   * null when another connection holds the write lock.
   */
  trim(wait?: boolean, maxRows?: number): number | null;
  /** Whether tokens wait for trim(). */
  readonly trimsDue: boolean;
  /** Whether the last catch-up took every pending row (false: maxRows stopped it short). */
  readonly caughtUp: boolean;
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
  /** Filling a token's search index (search_tokens.fill_st). */
  fill: number;
  trims: number;
}

/** When a writer catches up (both writers, capture-writer.ts and writer-worker.ts, keep one). */
export interface CatchUpSchedule {
  /** `n` captures were committed: catch up CATCH_UP_MS after the first one not taken, at once past CATCH_UP_ROWS. */
  committed(n: number): void;
  /**
   * Catches up now. A failure leaves the rows stored and pending (readable by UUID) and tries again
   * later. `wait` overrides the schedule's: whether to wait for the write lock.
   */
  now(wait?: boolean): void;
  /** Captures committed and not caught up yet. */
  readonly behind: number;
  /** A token was listed for the search index (search_tokens): fill it on the schedule. */
  fill(): void;
}

/**
 * A writer that must not wait for the write lock tries again this soon when another connection
 * holds it (a deletion's chunk holds it ~4 ms: chunks.ts).
 */
export const LOCK_RETRY_MS = 1;

export interface CatchUpScheduleOptions {
  /**
   * Told after every attempt, failed or not: a read waiting for it had better miss a few pending
   * captures than hang.
   */
  caught?: () => void;
  /**
   * Whether an attempt waits for the write lock (default true). Not waiting, an attempt that finds
   * it taken is tried again every LOCK_RETRY_MS (caught not told) until it ran or busy_timeout
   * passed (told: failed).
   */
  waits?: boolean;
  /** Catch up in chunks of about CATCH_UP_CHUNK_MS (only when not waiting). */
  chunked?: boolean;
  /** Told after each chunk that left more behind (chunked): reads waiting for rows up to writer.caughtTo may go. */
  progress?: () => void;
  /**
   * Told about each catch-up transaction that ran: the rows it took (0: a trim step) and how long
   * it held the connection (metrics).
   */
  observe?: CatchUpObserver;
  /** Before a step (chunked): commits the captures waiting, if any; true when it did. */
  yieldTo?: () => boolean;
  /** Whether a read waits for captures past writer.caughtTo (chunked: the steps go on for it). */
  wanted?: () => boolean;
}

export function catchUpSchedule(writer: BatchWriter, opts: CatchUpScheduleOptions = {}): CatchUpSchedule {
  const { caught = () => {}, waits = true, chunked = false, progress = () => {}, observe = () => {}, yieldTo = () => false, wanted = () => false } = opts;
  let behind = 0;
  /** Rows per chunk (chunked): what took about CATCH_UP_CHUNK_MS the last time. */
  let chunkRows = CHUNK_FIRST_ROWS;
  /** Requests per trim step (chunked): likewise. */
  let trimRows = TRIM_FIRST_ROWS;
  /** The next step, after this event-loop turn (chunked). */
  let nextStep: ReturnType<typeof setImmediate> | null = null;
  /** A next step is due: commits only count their captures meanwhile. */
  let stepping = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** When the running attempt first found the lock taken (0: it did not). */
  let busySince = 0;
  function later(ms = CATCH_UP_MS): void {
    timer ??= setTimeout(() => now(), ms);
    // Nothing to wait for at exit: writers catch up when they close, and a start redoes an unfinished one.
    timer.unref?.();
  }
  /**
   * The next step after this event-loop turn. The captures that came in during this one are
   * committed, and answered, first (yieldTo): scheduled now, the step would run ahead of their
   * commit, which the turn that reads them schedules after it, and they would wait for both.
   */
  function follow(): void {
    stepping = true;
    nextStep = setImmediate(() => {
      nextStep = yieldTo() ? setImmediate(() => now()) : null;
      if (!nextStep) now();
    });
  }
  /** `rows` per step so that one takes about CATCH_UP_CHUNK_MS, from one of `n` rows that took `ms`. */
  const aim = (n: number, ms: number) => Math.max(CHUNK_MIN_ROWS, Math.min(CATCH_UP_ROWS, Math.round((n * CATCH_UP_CHUNK_MS) / Math.max(ms, 0.1))));
  function now(wait = waits): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (nextStep) clearImmediate(nextStep);
    nextStep = null;
    stepping = false;
    if (!writer.open) return;
    // Chunked and not waiting: the catch-up and its trims in steps, each a transaction of about
    // CATCH_UP_CHUNK_MS, with the captures that came in meanwhile committed between them.
    const stepwise = chunked && !wait;
    try {
      const trimming = stepwise && writer.trimsDue;
      // A chunk also takes a quarter of the backlog at least: a transaction has a fixed cost (each
      // token's index pages, its counters, a text index segment) that small chunks pay too often to
      // keep up with a steady 8,000 captures/s.
      const max = stepwise ? Math.max(chunkRows, Math.ceil(behind / CHUNK_BACKLOG_SHARE)) : Number.MAX_SAFE_INTEGER;
      const t0 = performance.now();
      const n = trimming ? writer.trim(false, trimRows) : writer.catchUp(wait, max, stepwise);
      const ms = performance.now() - t0;
      if (n === null) {
        const t = performance.now();
        busySince ||= t;
        if (t - busySince < writer.busyTimeoutMs) return later(LOCK_RETRY_MS);
        later();
      } else {
        busySince = 0;
        observe(trimming ? 0 : n, ms / 1000);
        if (trimming) {
          if (n >= trimRows || ms > CATCH_UP_CHUNK_MS) trimRows = aim(n, ms);
        } else {
          // A chunk cut short sets the size; a whole catch-up only lowers it.
          if (stepwise && (writer.caughtUp ? n >= CHUNK_MIN_ROWS && ms > CATCH_UP_CHUNK_MS : n >= chunkRows)) chunkRows = aim(n, ms);
          behind = writer.caughtUp ? 0 : Math.max(1, behind - n);
        }
        // Rows caught up and trimmed: reads waiting for them may go.
        if (!writer.trimsDue) progress();
        // More to do, or captures since the last catch-up that a read waits for.
        if (stepwise && (writer.trimsDue || !writer.caughtUp || (behind > 0 && wanted()))) return follow();
      }
    } catch {
      later();
    }
    busySince = 0;
    // A token's search index to fill, entries to purge, or captures committed while the steps
    // ran: a step per catch-up, and one every CATCH_UP_MS meanwhile.
    if (writer.filling || writer.purging || behind > 0) later();
    caught();
  }
  return {
    fill() {
      writer.fillWanted();
      later();
    },
    committed(n) {
      behind += n;
      if (stepping) return;
      if (behind >= CATCH_UP_ROWS) now();
      else later();
    },
    now,
    get behind() {
      return behind;
    },
  };
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
  const insert = db.prepare(insertSql(false));
  const insertPlain = db.prepare(insertSql(true));
  const insertFile = db.prepare('INSERT INTO request_files (request_uuid, file_id, data) VALUES (?, ?, ?)');
  const tokenExists = db.prepare<[string], number>('SELECT 1 FROM tokens WHERE uuid = ?').pluck();
  const deletions = db.prepare<[], number>('SELECT n FROM token_deletions').pluck();
  const watermark = db.prepare<[], { seq: number }>('SELECT seq FROM request_watermark');
  const newest = db.prepare<[], number | null>('SELECT max(seq) FROM requests').pluck();
  const pending = db.prepare<[number, number], { seq: number; token_id: string; uuid: string; created_at: number }>(
    'SELECT seq, token_id, uuid, created_at FROM requests WHERE seq > ? ORDER BY seq LIMIT ?',
  );
  // In key order, so that consecutive inserts land on the same leaf page of request_keys.
  const addKeys = db.prepare('INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests WHERE seq > ? AND seq <= ? ORDER BY token_id, sorting, seq');
  // The search index (migration 23): only for the tokens in search_tokens, the few that need it.
  const searching = db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM search_tokens)').pluck();
  const SEARCHED = 'token_id IN (SELECT tk FROM search_tokens)';
  const addSearchKeys = db.prepare(
    `INSERT INTO search_keys (tk, st, sq, km, kty, kip, kca, ksz, kn) SELECT ${SEARCH_KEY_COLUMNS}
      FROM requests WHERE seq > ? AND seq <= ? AND ${SEARCHED} ORDER BY token_id, sorting, seq`,
  );
  // The full-text index: the body (content, bare words), the headers' and the query string's JSON text.
  const addText = db.prepare(`INSERT INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE seq > ? AND seq <= ? AND ${SEARCHED}`);
  // What a search checks of a candidate without its row (migration 27): token number, plain body; method, query string.
  const addSearchRows = db.prepare(
    `INSERT INTO search_rows (sq, tn, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.seq > ? AND r.seq <= ? AND t.tk = r.token_id ORDER BY r.seq`,
  );
  const addSearchFields = db.prepare(`INSERT INTO search_fields (sq, method, query) SELECT seq, method, query FROM requests WHERE seq > ? AND seq <= ? AND ${SEARCHED}`);
  // A token listed with requests already: filled FILL_ROWS at a time, newest first, from where the
  // last fill stopped. OR IGNORE: a request the catch-up indexed meanwhile (its text too) is skipped.
  const nextFill = db.prepare<[], { tk: string; fill_st: number; fill_sq: number }>('SELECT tk, fill_st, fill_sq FROM search_tokens WHERE fill_st IS NOT NULL LIMIT 1');
  const fillKeys = db.prepare<[string, number, number, number], { st: number; sq: number }>(
    'SELECT st, sq FROM request_keys WHERE tk = ? AND (st, sq) < (?, ?) ORDER BY st DESC, sq DESC LIMIT ?',
  );
  const fillKey = db.prepare(`INSERT OR IGNORE INTO search_keys (tk, st, sq, km, kty, kip, kca, ksz, kn) SELECT ${SEARCH_KEY_COLUMNS} FROM requests WHERE seq = ?`);
  const fillText = db.prepare(`INSERT INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE seq = ?`);
  const fillRow = db.prepare(`INSERT INTO search_rows (sq, tn, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.seq = ? AND t.tk = r.token_id`);
  const fillFields = db.prepare('INSERT INTO search_fields (sq, method, query) SELECT seq, method, query FROM requests WHERE seq = ?');
  const setFill = db.prepare('UPDATE search_tokens SET fill_st = ?, fill_sq = ? WHERE tk = ?');
  /** Whether a token waits for its fill (unknown at first: yes). */
  let filling = true;
  function fillStep(): void {
    const f = nextFill.get();
    if (f) {
      const keys = fillKeys.all(f.tk, f.fill_st, f.fill_sq, FILL_ROWS);
      for (const k of keys) if (fillKey.run(k.sq).changes) (fillText.run(k.sq), fillRow.run(k.sq), fillFields.run(k.sq));
      const last = keys.at(-1);
      if (keys.length === FILL_ROWS && last) setFill.run(last.st, last.sq, f.tk);
      else setFill.run(null, null, f.tk);
    }
    filling = nextFill.get() !== undefined;
  }
  // A deleted search-indexed request leaves its request_text entry, listed in request_text_stale
  // (migration 24); bulk and token deletions purge as many as they delete (chunks.ts), trimming
  // leaves them here. Each catch-up deletes listed entries for purgeMs at most; most of the time
  // none is listed, and looking costs one index read.
  /** Whether entries were left listed by the last purge (unknown at first: yes). */
  let purging = true;
  function purgeText(): number {
    const { purged, more } = purgeStaleText(db, TEXT_PURGE_ROWS, purgeMs);
    purging = more;
    return purged;
  }
  // The UUID index (reads by UUID), in UUID order: new UUIDs (v7, time-ordered) append.
  const addIds = db.prepare('INSERT INTO request_ids (u, sq) SELECT uuid, seq FROM requests WHERE seq > ? AND seq <= ? ORDER BY uuid, seq');
  const setWatermark = db.prepare('UPDATE request_watermark SET seq = ?');
  // One statement per token and catch-up: the bump returns the new count and the stored limit.
  const bumpToken = db.prepare<[number, string, number, string], { n: number; request_limit: number }>(
    'UPDATE tokens SET request_count = request_count + ?, latest_request_id = ?, latest_request_at = ? WHERE uuid = ? RETURNING request_count AS n, request_limit',
  );
  const dropCount = db.prepare('UPDATE tokens SET request_count = request_count - ? WHERE uuid = ?');
  // Trimming: each token's oldest keys go (the token index by range, where they lie together) and
  // their requests' rows are listed in request_trimmed (migration 26) for the sweep: deleted right
  // away, a token's oldest rows were scattered among every other token's, a page written per
  // trimmed request. A search-indexed token's rows go at once (their keys, search_keys rows and UUID
  // entries with them, their full-text entries listed for the purge: trigger requests_unkey), as a
  // search reads its full-text candidates' rows directly (DRIVEN), not through the keys.
  const oldest = db.prepare<[string, number], { st: number; sq: number }>('SELECT st, sq FROM request_keys WHERE tk = ? ORDER BY st ASC, sq ASC LIMIT ?');
  const unkeyOldest = db.prepare('DELETE FROM request_keys WHERE tk = @t AND (st, sq) <= (@st, @sq)');
  const listTrimmed = db.prepare('INSERT INTO request_trimmed (sq) SELECT value FROM json_each(?)');
  const searched = db.prepare<[string], number>('SELECT 1 FROM search_tokens WHERE tk = ?').pluck();
  const deleteSeqs = db.prepare('DELETE FROM requests WHERE seq IN (SELECT value FROM json_each(?))');
  // The sweep: the oldest listed rows (the trigger requests_unkey takes them off the list).
  const trimmedCount = db.prepare<[], number>('SELECT count(*) FROM request_trimmed').pluck();
  const sweepOldest = db.prepare('DELETE FROM requests WHERE seq IN (SELECT sq FROM request_trimmed ORDER BY sq LIMIT ?)');
  const dropOrphans = db.prepare('DELETE FROM requests WHERE seq IN (SELECT sq FROM request_keys WHERE tk = ?)');
  const storedCount = db.prepare<[string], number>('SELECT request_count FROM tokens WHERE uuid = ?').pluck();

  /**
   * Tokens a catch-up left over their request_limit, with that limit (as their captures saw it):
   * trimmed in the catch-up's transaction, or in transactions of their own after it (trim()).
   */
  const overLimit = new Map<string, number>();
  /**
   * Trims tokens of overLimit, at most maxRows requests in all (a token it stops inside stays
   * listed). Only the oldest go, so the latest request is unchanged: no need to recount.
   */
  function trimOver(maxRows: number): number {
    let trimmed = 0;
    /** Rows for the sweep, and rows deleted now (search-indexed tokens). */
    const seqs: number[] = [];
    const now: number[] = [];
    for (const [tokenId, limit] of overLimit) {
      const excess = (storedCount.get(tokenId) ?? limit) - limit;
      const take = Math.min(excess, maxRows - trimmed);
      if (take > 0) {
        const keys = oldest.all(tokenId, take);
        const last = keys.at(-1);
        if (last) {
          if (searched.get(tokenId) !== undefined) {
            for (const k of keys) now.push(k.sq);
            // The next catch-up purges their entries (it looks only while some are known to be listed).
            purging = true;
          } else {
            unkeyOldest.run({ t: tokenId, st: last.st, sq: last.sq });
            for (const k of keys) seqs.push(k.sq);
          }
          dropCount.run(keys.length, tokenId);
          trimmed += keys.length;
        }
      }
      if (take < excess) break;
      overLimit.delete(tokenId);
    }
    if (now.length) deleteSeqs.run(JSON.stringify(now));
    if (seqs.length) {
      listTrimmed.run(JSON.stringify(seqs));
      sweep(seqs.length);
    }
    return trimmed;
  }

  /**
   * Deletes the oldest listed rows of trimmed requests beyond the newest `trimmedBacklog`, at most
   * maxRows. Kept that long, the oldest lie together (every token at its limit trimmed past them),
   * so a page written holds several.
   */
  function sweep(maxRows: number): number {
    const over = trimmedCount.get()! - trimmedBacklog;
    return over > 0 ? sweepOldest.run(Math.min(over, maxRows)).changes : 0;
  }

  /**
   * The request_limit each token's captures came with (the token as the capture saw it); a
   * catch-up after a restart, which has none, uses the token's stored limit.
   */
  const limits = new Map<string, number>();
  /**
   * Tokens known to exist as of `deletionsSeen` (token_deletions.n): valid across batches until a
   * token is deleted, by this connection or another.
   */
  const alive = new Set<string>();
  let deletionsSeen = -1;

  /**
   * What this writer committed since the last catch-up, per token (count, newest), up to seq
   * `tallyTo`: the catch-up need not read those rows back. Trusted only when it accounts for every
   * key the catch-up makes (a pending row deleted meanwhile, or written by another process, and the
   * rows are read instead); unknown (null) until the first catch-up has read what was pending.
   */
  let tally: Map<string, Tally> | null = null;
  let tallyTo = 0;
  /** The rows in the tally, all tokens together. */
  let talliedRows = 0;
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
    for (const p of batch) {
      const tokenId = p.row[TOKEN] as string;
      if (!alive.has(tokenId)) {
        // The token was deleted while this capture was on its way.
        if (tokenExists.get(tokenId) === undefined) {
          outcomes.push({ gone: true });
          continue;
        }
        alive.add(tokenId);
      }
      last = (p.row.length === PLAIN_COLUMNS ? insertPlain : insert).run(p.row).lastInsertRowid;
      if (p.files) for (const [id, data] of p.files) insertFile.run(p.row[UUID], id, data);
      staged.push(p);
      outcomes.push(null);
    }
    stagedTo = Number(last);
    return outcomes;
  });

  /** Adds what a committed transaction stored (`staged`, up to seq `stagedTo`) to the limits and the tally. */
  function count(): void {
    for (const p of staged) {
      const tokenId = p.row[TOKEN] as string;
      limits.set(tokenId, p.limit);
      if (!tally) continue;
      const t = tally.get(tokenId);
      if (t) {
        t.added++;
        t.latest = p.row[UUID] as string;
        t.latestAt = p.row[CREATED_AT] as number;
      } else tally.set(tokenId, { added: 1, latest: p.row[UUID] as string, latestAt: p.row[CREATED_AT] as number, seq: stagedTo });
    }
    if (tally && staged.length) {
      tallyTo = Math.max(tallyTo, stagedTo);
      talliedRows += staged.length;
    }
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
        t.latest = r.uuid;
        t.latestAt = r.created_at;
        t.seq = r.seq;
      } else out.set(r.token_id, { added: 1, latest: r.uuid, latestAt: r.created_at, seq: r.seq });
    }
    return { touched: out, last, rows };
  }

  const parts: CatchUpParts = { rows: 0, keys: 0, ids: 0, text: 0, purge: 0, fill: 0, trims: 0 };
  /** Whether the running (last) catch-up takes every pending row. */
  let whole = true;
  /** The watermark as the last catch-up left it (0: none yet). */
  let caughtTo = 0;
  const catchUp = db.transaction((maxRows: number, trimLater: boolean): number => {
    let t = performance.now();
    const lap = () => -t + (t = performance.now());
    const from = watermark.get()!.seq;
    let touched = tally;
    let to = tallyTo;
    whole = true;
    if (touched) {
      let tallied = 0;
      for (const t of touched.values()) tallied += t.added;
      // Past maxRows, the tally (whole tokens) cannot say where a chunk ends: read the chunk's rows.
      if (tallied > maxRows) touched = null;
    }
    if (!touched) {
      let rows: number;
      ({ touched, last: to, rows } = readPending(from, Number.MAX_SAFE_INTEGER, maxRows));
      whole = rows < maxRows;
    }
    parts.rows = parts.keys = parts.ids = parts.text = parts.purge = parts.fill = parts.trims = 0;
    if (to <= from) {
      caughtTo = Math.max(caughtTo, from);
      if (whole && purging) purgeText();
      parts.purge = lap();
      if (whole && filling) fillStep();
      parts.fill = lap();
      if (!trimLater) trimOver(Number.MAX_SAFE_INTEGER);
      parts.trims = lap();
      return 0;
    }
    const keys = addKeys.run(from, to).changes;
    let expected = 0;
    for (const t of touched.values()) expected += t.added;
    if (keys !== expected) touched = readPending(from, to).touched;
    parts.rows = keys;
    parts.keys = lap();
    addIds.run(from, to);
    parts.ids = lap();
    if (searching.get()) {
      addSearchKeys.run(from, to);
      addText.run(from, to);
      addSearchRows.run(from, to);
      addSearchFields.run(from, to);
    }
    setWatermark.run(to);
    caughtTo = to;
    parts.text = lap();
    // Once per catch-up (its last chunk).
    if (whole) purgeText();
    parts.purge = lap();
    if (whole && filling) fillStep();
    parts.fill = lap();
    for (const [tokenId, { added, latest, latestAt }] of touched) {
      const bumped = bumpToken.get(added, latest, latestAt, tokenId);
      const limit = limits.get(tokenId) ?? bumped?.request_limit ?? 0;
      // A chunk's token may have rows in the next chunks, which trim to the same limit.
      if (whole) limits.delete(tokenId);
      // Deleted after its captures were stored: they go with it.
      if (!bumped) dropOrphans.run(tokenId);
      else if (bumped.n > limit) overLimit.set(tokenId, limit);
    }
    if (!trimLater) trimOver(Number.MAX_SAFE_INTEGER);
    parts.trims = lap();
    return keys;
  });

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
    const n = trimOver(maxRows);
    parts.trims = performance.now() - t0;
    return n;
  }).immediate;

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
      return filling;
    },
    get purging() {
      return purging;
    },
    get caughtTo() {
      return caughtTo;
    },
    newestSeq() {
      return newest.get() ?? 0;
    },
    nonePendingFor(tokenId) {
      if (!tally || tally.has(tokenId) || overLimit.has(tokenId)) return false;
      // Every seq after the watermark is a row of the tally: none was committed by another
      // connection (another process on the file, a writer thread that fell back) since. A gap in
      // the seqs only makes this say no.
      return (newest.get() ?? 0) - caughtTo === talliedRows;
    },
    fillWanted() {
      filling = true;
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
    trim(wait = true, maxRows = Number.MAX_SAFE_INTEGER) {
      const n = attempt(() => keepingOverLimit(() => trimTx(maxRows)), wait);
      return n === BUSY ? null : n;
    },
    catchUp(wait = true, maxRows = Number.MAX_SAFE_INTEGER, trimLater = false) {
      const n = attempt(() => keepingOverLimit(() => catchUpTx(maxRows, trimLater)), wait);
      if (n === BUSY) return null;
      // Caught up: from here on, the tally accounts for everything pending. Stopped short, it
      // counts rows now caught up: unknown until a catch-up reads what is pending.
      tally = whole ? new Map() : null;
      talliedRows = 0;
      if (!whole) tallyTo = 0;
      return n;
    },
  };
}

const BUSY = Symbol('busy');
