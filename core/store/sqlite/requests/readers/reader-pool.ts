// Where request lists, searches and chunked deletions run. On a file database: reader threads
// (reader-worker.ts), each with its own connection (WAL: they read while captures commit), so a
// search over a million rows or a 100,000-row deletion never holds up the event loop. On ':memory:'
// (another connection cannot see it): the main connection, in-thread.
import type { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import type { CaptureActivity } from '../capture-activity.js';
import { chunkPause, deleteMatches, deleteMatching, deleteTokenRequests, matchSource, yieldToLoop, type MatchBatch, type MatchCursor, type MatchSource } from './chunks.js';
import { noWait } from '../no-wait.js';
import type { RequestRecord, RequestWalkPage } from '../../../types.js';
import { readList, readWalk, type FilterPlans, type ListPlan, type ListResult, type WalkPlan } from './request-reads.js';
import type { FromReader, ReaderAnswers, ReaderData, ReaderJob, ToReader } from './reader-protocol.js';
import { startThread } from '../threads.js';

export interface RequestReads {
  list(plan: ListPlan): Promise<ListResult>;
  /** A step of a keyset walk (listAfter). */
  walk(plan: WalkPlan): Promise<RequestWalkPage>;
  /** Chunked: see chunks.ts. */
  deleteMatching(plans: FilterPlans): Promise<number>;
  deleteTokenRequests(tokenId: string): Promise<number>;
  /** Lets running deletions stop after their chunk, then stops the threads. */
  close(): Promise<void>;
}

/** On the main connection, yielding to the event loop between deletion chunks. */
export function inThreadReads(db: Database): RequestReads {
  let open = true;
  const pause = async () => (await yieldToLoop(), open);
  return {
    list: async (plan) => readList(db, plan),
    walk: async (plan) => readWalk(db, plan),
    deleteMatching: (plan) => deleteMatching(db, db, plan, pause),
    deleteTokenRequests: (tokenId) => deleteTokenRequests(db, tokenId, pause),
    async close() {
      open = false;
    },
  };
}

/** Bodies arrive from a thread as plain Uint8Arrays: made Buffers again, in place. */
function withBuffers<P extends { items: RequestRecord[] }>(page: P): P {
  for (const r of page.items) {
    const b = r.body as Uint8Array | null;
    if (b && !Buffer.isBuffer(b)) r.body = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  }
  return page;
}

/** Reader threads at most: one serves while another runs a long deletion or search. */
export const READER_THREADS = 2;

/**
 * A reader's young generation (V8, MB): what a job builds is one page of requests or a batch of
 * matches, sent on at once. Unbounded, a worker's grows as the main thread's may (to 32 MB) and
 * keeps it as RSS.
 */
export const READER_YOUNG_GENERATION_MB = 3;

interface Thread {
  worker: Worker;
  /** The job it runs, if any (one at a time). */
  job: Queued | null;
}

interface Queued {
  id: number;
  job: ReaderJob;
  resolve: (value: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Reader threads on `file`, started on first use (an idle service pays none) up to `size`, each
 * running one job at a time; jobs wait in order for a free thread. A thread that dies fails its
 * job and is replaced by the next job that needs one.
 */
export function readerPool(
  file: string,
  opts: { walLimitBytes: number; nice: number; size?: number; activity?: CaptureActivity },
): RequestReads & { readonly threads: number; matches(plan: FilterPlans, cursor: MatchCursor | null): Promise<MatchBatch & { ms: number }> } {
  const size = opts.size ?? READER_THREADS;
  const threads: Thread[] = [];
  const waiting: Queued[] = [];
  let nextId = 1;
  let closing: Promise<void> | null = null;

  function start(): Thread {
    const worker = startThread('readers/reader-worker', { file, walLimitBytes: opts.walLimitBytes, nice: opts.nice, activity: opts.activity } satisfies ReaderData, {
      maxYoungGenerationSizeMb: READER_YOUNG_GENERATION_MB,
    });
    worker.unref();
    const t: Thread = { worker, job: null };
    worker.on('message', (m: FromReader) => {
      if (m.t === 'stopped' || !t.job || t.job.id !== m.id) return;
      const q = t.job;
      t.job = null;
      worker.unref();
      if (m.t === 'done') q.resolve(m.value);
      else q.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      dispatch();
    });
    const gone = (err: unknown) => {
      const i = threads.indexOf(t);
      if (i < 0) return;
      threads.splice(i, 1);
      t.job?.reject(new Error(`Reader thread stopped: ${err instanceof Error ? err.message : String(err)}`));
      t.job = null;
      dispatch();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`exit code ${code}`)));
    threads.push(t);
    return t;
  }

  function dispatch(): void {
    while (waiting.length && !closing) {
      const t = threads.find((x) => !x.job) ?? (threads.length < size ? start() : null);
      if (!t) return;
      const q = waiting.shift()!;
      t.job = q;
      // Held open while it works, so that a job's answer is awaited like any other I/O.
      t.worker.ref();
      t.worker.postMessage({ t: 'job', id: q.id, job: q.job } satisfies ToReader);
    }
  }

  function submit<K extends ReaderJob['op']>(job: Extract<ReaderJob, { op: K }>): Promise<ReaderAnswers[K]> {
    if (closing) return Promise.reject(new Error('The store is closed'));
    return new Promise<ReaderAnswers[K]>((resolve, reject) => {
      waiting.push({ id: nextId++, job, resolve: resolve as (v: unknown) => void, reject });
      dispatch();
    });
  }

  return {
    get threads() {
      return threads.length;
    },
    list: async (plan) => withBuffers(await submit({ op: 'list', plan })),
    walk: async (plan) => withBuffers(await submit({ op: 'walk', plan })),
    deleteMatching: (plan) => submit({ op: 'deleteMatching', plan }),
    deleteTokenRequests: (tokenId) => submit({ op: 'deleteTokenRequests', tokenId }),
    matches: (plan, cursor) => submit({ op: 'matches', plan, cursor }),
    close() {
      if (closing) return closing;
      const error = new Error('The store is closed');
      for (const q of waiting.splice(0)) q.reject(error);
      closing = Promise.all(
        threads.map(
          (t) =>
            new Promise<void>((resolve) => {
              const done = () => {
                clearTimeout(timer);
                void t.worker.terminate().finally(resolve);
              };
              // A deletion stops after its current chunk; a search finishes (bounded by this wait).
              const timer = setTimeout(done, 10_000);
              t.worker.ref();
              t.worker.on('message', (m: FromReader) => {
                if (m.t === 'stopped') done();
              });
              t.worker.once('exit', done);
              t.worker.postMessage({ t: 'stop' } satisfies ToReader);
            }),
        ),
      ).then(() => undefined);
      return closing;
    },
  };
}

/**
 * A file database's threads: lists and searches on niced reader threads (they give way to the event
 * loop), and a deletion's matches read on one thread at normal priority. Lists and searches wait
 * their turn while the event loop is saturated (`activity`, capture-activity.ts).
 *
 * The deletions themselves run on the connection that commits the captures, `deleteOn` (the event
 * loop's, with the in-thread writer), in chunks between the event loop's turns: every commit of
 * another connection empties a connection's page cache, so on a connection of their own each chunk
 * started cold behind the captures' commits (at 200,000 requests, 73 µs a deleted row against 27
 * on the captures' connection, in-process).
 * Without `deleteOn` (a writer thread commits the captures), they run on the matches' thread, which
 * holds the write lock a chunk at a time: at normal priority, as a niced holder preempted by other
 * work would keep the capture writer waiting behind it. Either way they give way longer while the
 * capture writers commit (chunks.ts, pauseAfter).
 */
export function threadedReads(file: string, opts: { walLimitBytes: number; nice: number; activity?: CaptureActivity; deleteOn?: Database }): RequestReads {
  const readers = readerPool(file, { walLimitBytes: opts.walLimitBytes, nice: opts.nice, activity: opts.activity });
  const deleter = readerPool(file, { walLimitBytes: opts.walLimitBytes, nice: 0, size: 1, activity: opts.activity });
  const db = opts.deleteOn;
  let open = true;
  /** Between two chunks on the event loop: as long as the deleting thread would pause. */
  const pauseOnLoop = () => chunkPause(opts.activity, () => open);
  const lock = db ? noWait(db) : null;
  /** Deletions running on the event loop: closing waits for them to stop after their chunk. */
  const running = new Set<Promise<number>>();
  const track = (deletion: Promise<number>): Promise<number> => {
    running.add(deletion);
    const gone = () => running.delete(deletion);
    deletion.then(gone, gone);
    return deletion;
  };
  return {
    list: (plan) => readers.list(plan),
    walk: (plan) => readers.walk(plan),
    deleteMatching(plan) {
      if (!db) return deleter.deleteMatching(plan);
      // Closing, the matches' thread stops: the deletion ends with what it deleted, as on a thread.
      const read = matchSource((cursor) => deleter.matches(plan, cursor));
      const matches: MatchSource = async () => {
        if (!open) return null;
        try {
          return await read();
        } catch (e) {
          if (open) throw e;
          return null;
        }
      };
      return track(deleteMatches(db, plan, matches, pauseOnLoop(), lock));
    },
    deleteTokenRequests: (tokenId) => (db ? track(deleteTokenRequests(db, tokenId, pauseOnLoop(), lock)) : deleter.deleteTokenRequests(tokenId)),
    async close() {
      open = false;
      await Promise.all([readers.close(), deleter.close(), ...[...running].map((d) => d.catch(() => 0))]);
    },
  };
}
