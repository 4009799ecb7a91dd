// When a writer catches up: CATCH_UP_MS after the first capture not taken, at once past
// CATCH_UP_ROWS or when a read waits; for the event loop's writer, in steps of about
// CATCH_UP_CHUNK_MS with the captures that came in meanwhile committed between them. Both writers
// (capture-writer.ts on the event loop, writer-worker.ts on its thread) keep one.
import type { CatchUpObserver } from '../../../types.js';
import type { BatchWriter } from './batch-writer.js';

/**
 * How long a stored capture may wait for its catch-up when nobody asks for it (a read that needs it
 * catches up at once). Longer is cheaper per capture: a catch-up's fixed cost, each receiving
 * token's index pages, counters and (search-indexed) full-text segment written once, is shared by
 * more captures; its steps still hold the loop CATCH_UP_CHUNK_MS at a time. With 100 tokens
 * receiving, 200 ms against 100 (twice the rows a catch-up) cut the catch-up's CPU per capture by
 * about a fifth on plain tokens and on search-indexed ones (measured in-process).
 */
const CATCH_UP_MS = 200;
/**
 * While a token's search index fills or deleted requests' full-text entries wait for the purge,
 * each catch-up doing a bounded share of that work, they come this often.
 */
const FOLLOW_UP_MS = 100;
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
/**
 * An index step's aim (chunked: requests deferred to a search-indexed token's full-text index),
 * longer than CATCH_UP_CHUNK_MS: each step writes a full-text segment, and small segments cost more
 * to merge later (FTS5 trigram, 120,000 rows: 26 µs a row in transactions of 200, 20 in 400, 17 in
 * 1,200). Search-indexed captures, 100 tokens, wrk -c32 (CPU per capture, several runs each): 71-88 µs
 * with 12-ms steps, 60-77 µs with 36-ms ones, and a steadier p99 (126-149 ms against 90-216).
 * Plain tokens never take index steps.
 */
const INDEX_STEP_MS = 36;
/** A chunk's bounds in rows, whatever the measured cost per row. */
const CHUNK_MIN_ROWS = 64;
const CHUNK_FIRST_ROWS = 128;
/** A trim step's first size in requests (chunked), before its cost per request is measured. */
const TRIM_FIRST_ROWS = 1_000;
/**
 * Rows caught up since the last trims, per token waiting for them, that make the trims due at the
 * next step rather than after the catch-up's last (chunked).
 */
export const TRIM_ROWS_PER_TOKEN = 16;
/** A sweep step's first size in rows (chunked: a lowered token's trimmed rows), likewise. */
const SWEEP_FIRST_ROWS = 500;
/** An index step's first size in requests (chunked: requests deferred to the search index), likewise. */
const INDEX_FIRST_ROWS = 500;
/** A chunk takes at least this share of the captures behind (1/n). */
const CHUNK_BACKLOG_SHARE = 4;

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
  /**
   * Whether a read waits for captures the catch-ups took (writer.takenTo) whose search index waits
   * for an index step (chunked: the index steps go first).
   */
  indexWanted?: () => boolean;
}

export function catchUpSchedule(writer: BatchWriter, opts: CatchUpScheduleOptions = {}): CatchUpSchedule {
  const { caught = () => {}, waits = true, chunked = false, progress = () => {}, observe = () => {}, yieldTo = () => false, wanted = () => false, indexWanted = () => false } = opts;
  let behind = 0;
  /** Rows per chunk (chunked): what took about CATCH_UP_CHUNK_MS the last time. */
  let chunkRows = CHUNK_FIRST_ROWS;
  /** Requests per trim step (chunked): likewise. */
  let trimRows = TRIM_FIRST_ROWS;
  /** Rows per sweep step (chunked): likewise. */
  let sweepRows = SWEEP_FIRST_ROWS;
  /** Requests per index step (chunked): likewise. */
  let indexRows = INDEX_FIRST_ROWS;
  /** The last step was a sweep step: with captures behind, the next one catches up. */
  let swept = false;
  /** When trims became due and were left for the catch-up's last step (0: none are due). */
  let trimsSince = 0;
  /** Rows caught up since the last trim step (chunked). */
  let caughtSinceTrims = 0;
  /** A read or a lowering asked since trims became due: they go at the next step. */
  let trimsWanted = false;
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
  /** `rows` per step so that one takes about `aimMs`, from one of `n` rows that took `ms`. */
  const aim = (n: number, ms: number, aimMs = CATCH_UP_CHUNK_MS) => Math.max(CHUNK_MIN_ROWS, Math.min(CATCH_UP_ROWS, Math.round((n * aimMs) / Math.max(ms, 0.1))));
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
      // Trims wait for the catch-up's last step (or a read, a lowering, CATCH_UP_MS at most), unless
      // the steps since the last trims took TRIM_ROWS_PER_TOKEN rows a token waiting: a trim step's
      // cost is mostly per token it trims (its statements, its index pages written again), so
      // trimming after every small step of a catch-up paid it once a step; left too long, each
      // token's index range grows and splits pages that the trims then merge back.
      if (!writer.trimsDue) trimsSince = 0;
      else trimsSince ||= performance.now();
      const trimming = stepwise && writer.trimsDue && (writer.caughtUp || trimsWanted || wanted() || performance.now() - trimsSince >= CATCH_UP_MS || caughtSinceTrims >= TRIM_ROWS_PER_TOKEN * writer.tokensOverLimit);
      // A lowered token's trimmed rows (no read waits for them) between the catch-ups: a sweep step
      // unless a read waits for rows not caught up (this writer's or another connection's), or the
      // last step was one and captures came in.
      const sweeping = stepwise && !trimming && writer.sweepDue && !wanted() && !(behind > 0 && swept);
      swept = sweeping;
      // Requests the catch-up's steps deferred to the search index, once they took every row or a
      // read waits for them (under a steady stream of captures the steps may not take every row for
      // a long while, and the read waited that long): each index step takes whole tokens' requests
      // (batch-writer.ts index).
      const indexing = stepwise && !trimming && !sweeping && writer.indexDue && (writer.caughtUp || indexWanted());
      // A chunk also takes a quarter of the backlog at least: a transaction has a fixed cost (each
      // token's index pages, its counters, a text index segment) that small chunks pay too often to
      // keep up with a steady 8,000 captures/s.
      const max = stepwise ? Math.max(chunkRows, Math.ceil(behind / CHUNK_BACKLOG_SHARE)) : Number.MAX_SAFE_INTEGER;
      // A catch-up step that takes every row behind also trims, in its transaction, as many
      // requests as the rest of its CATCH_UP_CHUNK_MS allows (the trims would be the next step's):
      // the pages of the tokens' index and counters it has just written are written once.
      const lastTrims = stepwise && !trimming && !sweeping && !indexing && behind < max ? Math.floor(trimRows * Math.max(0, 1 - behind / chunkRows)) : 0;
      const t0 = performance.now();
      const n = trimming ? writer.trim(false, trimRows) : sweeping ? writer.sweep(false, sweepRows) : indexing ? writer.index(false, indexRows) : writer.catchUp(wait, max, stepwise, lastTrims);
      let ms = performance.now() - t0;
      if (n === null) {
        const t = performance.now();
        busySince ||= t;
        if (t - busySince < writer.busyTimeoutMs) return later(LOCK_RETRY_MS);
        later();
      } else {
        busySince = 0;
        observe(trimming || sweeping || indexing ? 0 : n, ms / 1000);
        if (trimming) {
          caughtSinceTrims = 0;
          if (n >= trimRows || ms > CATCH_UP_CHUNK_MS) trimRows = aim(n, ms);
        } else if (sweeping) {
          if (n >= sweepRows || ms > CATCH_UP_CHUNK_MS) sweepRows = aim(n, ms);
        } else if (indexing) {
          if (n >= indexRows || ms > INDEX_STEP_MS) indexRows = aim(n, ms, INDEX_STEP_MS);
        } else {
          const { trimmed, trims: trimsMs } = writer.lastCatchUp;
          if (trimmed) {
            caughtSinceTrims = 0;
            if (trimmed >= lastTrims || trimsMs > CATCH_UP_CHUNK_MS) trimRows = aim(trimmed, trimsMs);
            ms -= trimsMs;
          }
          // A chunk cut short sets the size; a whole catch-up only lowers it.
          if (stepwise && (writer.caughtUp ? n >= CHUNK_MIN_ROWS && ms > CATCH_UP_CHUNK_MS : n >= chunkRows)) chunkRows = aim(n, ms);
          behind = writer.caughtUp ? 0 : Math.max(1, behind - n);
          caughtSinceTrims += n;
        }
        // Rows caught up and trimmed: reads waiting for them may go.
        if (!writer.trimsDue) {
          trimsWanted = false;
          trimsSince = 0;
          progress();
        }
        // More to do, or captures since the last catch-up that a read waits for.
        if (stepwise && (writer.trimsDue || writer.sweepDue || writer.indexDue || !writer.caughtUp || (behind > 0 && wanted()))) return follow();
      }
    } catch {
      later();
    }
    busySince = 0;
    // A token's search index to fill, entries to purge, or captures committed while the steps
    // ran: a step per catch-up, and one every FOLLOW_UP_MS (fill, purge) or CATCH_UP_MS meanwhile.
    if (writer.filling || writer.purging || writer.indexDue) later(FOLLOW_UP_MS);
    else if (behind > 0) later();
    caught();
  }
  return {
    fill() {
      writer.fillWanted();
      later(FOLLOW_UP_MS);
    },
    committed(n) {
      behind += n;
      if (stepping) return;
      if (behind >= CATCH_UP_ROWS) now();
      else later();
    },
    now(wait) {
      // A read waiting (sync) or a lowering (trimTo): the trims due go first, not after the catch-up.
      trimsWanted = true;
      now(wait);
    },
    get behind() {
      return behind;
    },
  };
}
