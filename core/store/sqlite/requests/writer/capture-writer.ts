// Where RequestRepo.insert() sends captures. Both writers group-commit with the same code
// (batch-writer.ts), settle each capture only once its transaction is committed, and catch up
// (token and UUID indexes, counters, trimming) in bulk on one schedule (catchUpSchedule) or when
// asked: sync() makes every acknowledged capture visible to the token-scoped reads, which call it
// first.
// - in-thread: on the main connection, one transaction per event-loop turn. The default with
//   synchronous NORMAL, where a commit is CPU work only (and always for ':memory:' databases,
//   which another thread cannot open);
// - worker: on a writer thread with its own connection to the file. The main thread only posts the
//   records (one message per event-loop turn) and settles them when the thread acknowledges. The
//   default with synchronous FULL, where every commit waits for an fsync.
import type { Database } from 'better-sqlite3';
import { NotFound } from '../../../../errors.js';
import type { SpaceWatch } from '../../../space.js';
import type { CatchUpObserver, CommitObserver, RequestRecord } from '../../../types.js';
import { encodeBatch, type EncodedBatch } from './batch-codec.js';
import { toRow } from '../columns.js';
import { createBatchWriter, type WriteItem, type WriteOutcome } from './batch-writer.js';
import { catchUpSchedule, LOCK_RETRY_MS } from './catch-up-schedule.js';
import type { CaptureActivity } from '../capture-activity.js';
import { startThread } from '../threads.js';
import type { FromWriter, ToWriter, WireOutcome, WriterData } from './writer-protocol.js';

export interface CaptureWriter {
  write(record: RequestRecord, limit: number, files?: ReadonlyMap<string, Buffer>): Promise<void>;
  /**
   * Resolves once every capture acknowledged so far is caught up (indexed, counted, trimmed); with
   * `tokenId`, every capture of that token (a writer may then skip the catch-up when it knows the
   * token has none waiting).
   */
  sync(tokenId?: string): Promise<void>;
  /** Commits everything queued, then stops (call it before closing the store's connection). */
  close(): Promise<void>;
  /** A token was listed for the search index (search_tokens, migration 23): fill it in the background. */
  fillSearchIndex(): void;
  /**
   * A token's request_limit was set: its requests beyond `limit` are trimmed (out of the indexes)
   * in steps that give way to captures, which a read of the token (sync) waits for; their rows are
   * then swept in steps of their own, which no read waits for.
   */
  trimTo(tokenId: string, limit: number): void;
  /** Tests and diagnostics: which writer is in use now. */
  readonly mode: 'in-thread' | 'worker';
  /** Told about every committed batch: how many captures, how long the commit took (metrics). */
  onCommit: CommitObserver | null;
  /**
   * Told about every catch-up transaction: the rows it took, how long it ran (metrics). In-thread,
   * that is how long it held the event loop.
   */
  onCatchUp: CatchUpObserver | null;
}

interface Pending {
  record: RequestRecord;
  limit: number;
  files?: ReadonlyMap<string, Buffer>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A capture waiting for the in-thread writer's commit: its row and how to settle it, one object. */
type Queued = WriteItem & Pick<Pending, 'resolve' | 'reject'>;

/**
 * The settle functions of the promise last made with `keepSettlers`: one shared executor, so a
 * write (once per capture) allocates no closure of its own. Read them right after `new Promise`.
 */
const settlers: Pick<Pending, 'resolve' | 'reject'> = { resolve: () => {}, reject: () => {} };
function keepSettlers(resolve: () => void, reject: (e: unknown) => void): void {
  settlers.resolve = resolve;
  settlers.reject = reject;
}

/** `space`: told of a failed write, which it answers with InsufficientStorage when space ran out. */
function settle(p: Pick<Pending, 'resolve' | 'reject'>, o: WriteOutcome | WireOutcome, space: SpaceWatch | undefined): void {
  if (o === null) return p.resolve();
  if (o.gone) return p.reject(new NotFound('Token not found'));
  const error = 'error' in o ? o.error : Object.assign(new Error(o.message), o.code ? { code: o.code } : {});
  if (space) void space.failed(error).then(p.reject);
  else p.reject(error);
}

/**
 * Group commit on the given connection: one transaction per event-loop turn, settled once it is
 * committed. The catch-up runs on the writers' shared schedule (catchUpSchedule), and at once when
 * a token-scoped read asks (sync).
 *
 * Neither ever waits for the write lock on the event loop: SQLite's busy handler sleeps, and every
 * request would stall behind a deletion's chunk, a checkpoint or another process's write. While
 * the lock is taken, the captures stay queued (new ones join them, in order) and the commit is
 * tried again every LOCK_RETRY_MS; past the connection's busy_timeout they fail with SQLITE_BUSY,
 * as a waiting commit would have.
 */
export function inThreadWriter(db: Database, activity?: CaptureActivity, space?: SpaceWatch): CaptureWriter {
  const writer = createBatchWriter(db, { activity });
  /** Captures not committed yet, oldest first, each with its row. */
  let queue: Queued[] = [];
  /** A flush is due: after this event-loop turn, or after the lock retry's delay. */
  let due: { cancel(): void } | null = null;
  /** When the queue's head first found the lock taken (0: it did not). */
  let busySince = 0;
  /** Reads waiting for the rows up to `need` (the newest row when they asked, whoever stored it) to be caught up. */
  let syncs: Array<{ need: number; resolve: () => void }> = [];
  const catchUp = catchUpSchedule(writer, {
    caught() {
      const waiting = syncs;
      syncs = [];
      for (const s of waiting) s.resolve();
    },
    // Chunked: each catch-up transaction holds the event loop about CATCH_UP_CHUNK_MS, not the
    // hundreds of ms a few thousand rows' indexing (and FTS5's segment merges) take in one.
    waits: false,
    chunked: true,
    // Under a steady stream of captures the catch-up may not be whole for a while: a read goes as
    // soon as what was stored before it asked (by this process or another, or left by an earlier
    // one) is caught up, not after the captures since.
    progress() {
      if (!syncs.some((s) => s.need <= writer.caughtTo)) return;
      const waiting = syncs;
      syncs = [];
      for (const s of waiting) s.need <= writer.caughtTo ? s.resolve() : syncs.push(s);
    },
    observe: (rows, seconds) => self.onCatchUp?.(rows, seconds),
    yieldTo() {
      if (!queue.length) return false;
      flush();
      return true;
    },
    wanted: () => syncs.some((s) => s.need > writer.caughtTo),
    indexWanted: () => syncs.some((s) => s.need > writer.caughtTo && s.need <= writer.takenTo),
  });

  function commitQueued(wait: boolean): void {
    due?.cancel();
    due = null;
    const batch = queue;
    queue = [];
    if (!batch.length) return;
    const observe = self.onCommit;
    const t0 = observe ? performance.now() : 0;
    const outcomes = writer.commit(batch, wait);
    const done = outcomes.length;
    if (done) {
      observe?.(done, (performance.now() - t0) / 1000);
      catchUp.committed(done);
    }
    if (done < batch.length) lockTaken(batch.slice(done));
    else busySince = 0;
    if (space && outcomes.includes(null)) space.succeeded();
    for (let i = 0; i < done; i++) settle(batch[i]!, outcomes[i]!, space);
  }
  /** `waiting` could not take the write lock: ahead of anything queued since, tried again shortly. */
  function lockTaken(waiting: typeof queue): void {
    const t = performance.now();
    busySince ||= t;
    if (t - busySince >= writer.busyTimeoutMs) {
      busySince = 0;
      const error = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      for (const q of waiting) q.reject(error);
    } else queue = waiting.concat(queue);
    if (queue.length) {
      const timer = setTimeout(flush, LOCK_RETRY_MS);
      due = { cancel: () => clearTimeout(timer) };
    }
  }
  const flush = () => commitQueued(false);
  const self: CaptureWriter = {
    mode: 'in-thread',
    onCommit: null,
    onCatchUp: null,
    write(record, limit, files) {
      let row: unknown[];
      try {
        row = toRow(record);
      } catch (e) {
        return Promise.reject(e);
      }
      const written = new Promise<void>(keepSettlers);
      queue.push({ row, limit, files, resolve: settlers.resolve, reject: settlers.reject });
      if (!due) {
        const immediate = setImmediate(flush);
        due = { cancel: () => clearImmediate(immediate) };
      }
      return written;
    },
    sync(tokenId) {
      flush();
      if (!catchUp.behind && !writer.trimsDue && !writer.indexDue) return Promise.resolve();
      // A read of one token while others take captures: no catch-up forced for theirs.
      if (tokenId !== undefined && writer.nonePendingFor(tokenId)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        syncs.push({ need: writer.newestSeq(), resolve });
        catchUp.now();
      });
    },
    fillSearchIndex() {
      catchUp.fill();
    },
    trimTo(tokenId, limit) {
      flush();
      writer.trimTo(tokenId, limit);
      // After this turn: the caller (a token's update) answers without waiting for a first step;
      // a read of the token before then starts the steps itself (sync).
      setImmediate(() => catchUp.now());
    },
    async close() {
      // Closing may wait for the lock (busy_timeout), as any statement on the connection does.
      commitQueued(true);
      catchUp.now(true);
    },
  };
  // Rows a writer thread or an earlier process stored and did not catch up.
  catchUp.now();
  return self;
}

export interface WorkerWriterOptions {
  file: string;
  synchronous: 'NORMAL' | 'FULL';
  /** The checkpointer thread runs: the writer's connection must not checkpoint in its commits. */
  noAutocheckpoint: boolean;
  /** Niceness of the thread (0: as the event loop). */
  nice?: number;
  /** The WAL's bound (journal_size_limit), as on every connection that writes. */
  walLimitBytes: number;
  /** Told when the thread died and captures went back to the main connection. */
  onFallback?: (err: unknown) => void;
  /** Counts the thread's commits, for bulk deletions to give way to (capture-activity.ts). */
  activity?: CaptureActivity;
  /** Told of the commits and of the failures, which it answers with InsufficientStorage when space ran out. */
  space?: SpaceWatch;
}

/**
 * Group commit on a writer thread. If the thread dies, the captures it had not acknowledged are
 * rejected (it acknowledges only after commit, so none of the acknowledged ones is lost) and the
 * writer falls back to the in-thread one on `db`.
 */
export type WorkerCaptureWriter = CaptureWriter & { autocheckpoint(pages: number): void; crashForTesting(): void; readonly started: Promise<{ nice: number | null }> };

export function workerWriter(db: Database, opts: WorkerWriterOptions): WorkerCaptureWriter {
  const worker = startThread('writer/writer-worker', {
    file: opts.file,
    synchronous: opts.synchronous,
    noAutocheckpoint: opts.noAutocheckpoint,
    nice: opts.nice ?? 0,
    walLimitBytes: opts.walLimitBytes,
    activity: opts.activity,
  } satisfies WriterData);
  worker.unref();
  let fallback: CaptureWriter | null = null;
  let stopping: Promise<void> | null = null;
  let queue: Pending[] = [];
  let nextId = 1;
  const inflight = new Map<number, Pending[]>();
  // Batch ids: the newest acknowledged, and the newest the thread has caught up to; -1 until the
  // thread has caught up what an earlier process left pending (it does so first thing).
  let acked = 0;
  let caughtUp = -1;
  const syncs: Array<{ need: number; resolve: () => void }> = [];
  const keepAlive = () => (inflight.size || syncs.length ? worker.ref() : stopping ? undefined : worker.unref());
  function releaseSyncs(all: boolean): void {
    for (let i = syncs.length - 1; i >= 0; i--) {
      if (all || syncs[i]!.need <= caughtUp) syncs.splice(i, 1)[0]!.resolve();
    }
  }

  function post(): void {
    const batch = queue;
    queue = [];
    if (!batch.length) return;
    if (fallback) {
      for (const p of batch) fallback.write(p.record, p.limit, p.files).then(p.resolve, p.reject);
      return;
    }
    const items: WriteItem[] = [];
    const sent: Pending[] = [];
    for (const p of batch) {
      try {
        items.push({ row: toRow(p.record), limit: p.limit, files: p.files });
        sent.push(p);
      } catch (e) {
        p.reject(e);
      }
    }
    if (!sent.length) return;
    let encoded: EncodedBatch;
    try {
      encoded = encodeBatch(items);
    } catch (e) {
      for (const p of sent) p.reject(e);
      return;
    }
    const id = nextId++;
    inflight.set(id, sent);
    keepAlive();
    worker.postMessage({ t: 'w', id, batch: encoded } satisfies ToWriter, [encoded.meta, encoded.bytes]);
  }

  let started!: (s: { nice: number | null }) => void;
  const startedP = new Promise<{ nice: number | null }>((r) => (started = r));
  worker.on('message', (m: FromWriter) => {
    if (m.t === 'ready') return started({ nice: m.nice });
    if (m.t === 'catchup') return self.onCatchUp?.(m.rows, m.seconds);
    if (m.t === 'caught') {
      caughtUp = Math.max(caughtUp, m.upTo);
      releaseSyncs(false);
      return keepAlive();
    }
    if (m.t !== 'ack') return;
    // `failed` indexes the items of all of `ids`, in order, as one list.
    const failed = m.failed;
    let base = 0;
    let f = 0;
    for (const id of m.ids) {
      const batch = inflight.get(id);
      if (!batch) continue;
      inflight.delete(id);
      acked = Math.max(acked, id);
      for (let i = 0; i < batch.length; i++) {
        if (failed && f < failed.length && failed[f]![0] === base + i) settle(batch[i]!, failed[f++]![1], opts.space);
        else batch[i]!.resolve();
      }
      base += batch.length;
    }
    if (base) self.onCommit?.(base, m.seconds);
    if (base > (failed?.length ?? 0)) opts.space?.succeeded();
    keepAlive();
  });

  function died(err: unknown): void {
    if (fallback || stopping) return;
    fallback = inThreadWriter(db, opts.activity, opts.space);
    fallback.onCommit = (n, s) => self.onCommit?.(n, s);
    fallback.onCatchUp = (n, s) => self.onCatchUp?.(n, s);
    const error = new Error(`Capture writer thread stopped: ${err instanceof Error ? err.message : String(err)}`);
    for (const batch of inflight.values()) for (const p of batch) p.reject(error);
    inflight.clear();
    // The fallback caught up on the main connection when it was made.
    releaseSyncs(true);
    opts.onFallback?.(err);
  }
  worker.on('error', died);
  worker.on('exit', (code) => died(new Error(`exit code ${code}`)));

  const self: WorkerCaptureWriter = {
    get mode() {
      return fallback ? 'in-thread' : 'worker';
    },
    onCommit: null,
    onCatchUp: null,
    /** The thread is running, at this niceness (tests, diagnostics). */
    started: startedP,
    write(record, limit, files) {
      if (fallback) return fallback.write(record, limit, files);
      if (stopping) return Promise.reject(new Error('The store is closed'));
      const written = new Promise<void>(keepSettlers);
      if (queue.push({ record, limit, files, resolve: settlers.resolve, reject: settlers.reject }) === 1) setImmediate(post);
      return written;
    },
    sync() {
      if (fallback) return fallback.sync();
      if (stopping || acked <= caughtUp) return Promise.resolve();
      return new Promise<void>((resolve) => {
        syncs.push({ need: acked, resolve });
        keepAlive();
        worker.postMessage({ t: 'sync' } satisfies ToWriter);
      });
    },
    fillSearchIndex() {
      if (fallback) fallback.fillSearchIndex();
      else if (!stopping) worker.postMessage({ t: 'fill' } satisfies ToWriter);
    },
    trimTo(tokenId, limit) {
      if (fallback) return fallback.trimTo(tokenId, limit);
      if (stopping) return;
      // After the captures queued before it; its id counts as acknowledged, so sync waits for its catch-up.
      post();
      const id = nextId++;
      acked = Math.max(acked, id);
      worker.postMessage({ t: 'trim', id, tokenId, limit } satisfies ToWriter);
    },
    close() {
      if (stopping) return stopping;
      post();
      if (fallback) return (stopping = fallback.close());
      stopping = new Promise<void>((resolve) => {
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          // Whatever was not acknowledged by now never will be.
          const error = new Error('Capture writer stopped before committing');
          for (const batch of inflight.values()) for (const p of batch) p.reject(error);
          inflight.clear();
          releaseSyncs(true);
          void worker.terminate().finally(resolve);
        };
        const timer = setTimeout(finish, 10_000);
        worker.ref();
        worker.on('message', (m: FromWriter) => {
          if (m.t === 'stopped') finish();
        });
        worker.once('exit', finish);
        worker.postMessage({ t: 'stop' } satisfies ToWriter);
      });
      return stopping;
    },
    /** The checkpointer thread is gone: the writer's connection checkpoints by itself again. */
    autocheckpoint(pages) {
      if (!fallback && !stopping) worker.postMessage({ t: 'autocheckpoint', pages } satisfies ToWriter);
    },
    crashForTesting() {
      worker.postMessage({ t: 'crash' } satisfies ToWriter);
    },
  };
  return self;
}
