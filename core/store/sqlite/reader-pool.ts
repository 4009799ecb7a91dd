// Where request lists, searches and chunked deletions run. On a file database: reader threads
// (reader-worker.ts), each with its own connection (WAL: they read while captures commit), so a
// search over a million rows or a 100,000-row deletion never holds up the event loop. On ':memory:'
// (another connection cannot see it): the main connection, in-thread.
import type { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import type { CaptureActivity } from './capture-activity.js';
import { deleteMatching, deleteTokenRequests, yieldToLoop } from './chunks.js';
import type { RequestRecord, RequestWalkPage } from '../types.js';
import { readList, readWalk, type FilterPlans, type ListPlan, type ListResult, type WalkPlan } from './request-reads.js';
import type { FromReader, ReaderAnswers, ReaderData, ReaderJob, ToReader } from './reader-protocol.js';
import { startThread } from './threads.js';

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
export function readerPool(file: string, opts: { walLimitBytes: number; nice: number; size?: number; activity?: CaptureActivity }): RequestReads & { readonly threads: number } {
  const size = opts.size ?? READER_THREADS;
  const threads: Thread[] = [];
  const waiting: Queued[] = [];
  let nextId = 1;
  let closing: Promise<void> | null = null;

  function start(): Thread {
    const worker = startThread('reader-worker', { file, walLimitBytes: opts.walLimitBytes, nice: opts.nice, activity: opts.activity } satisfies ReaderData);
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
 * loop), deletions on one thread at normal priority: it holds the write lock a chunk at a time, and
 * a niced holder preempted by other work would keep the capture writer waiting behind it. It gives
 * way longer while the capture writers commit, and lists and searches wait their turn while the
 * event loop is saturated (`activity`, capture-activity.ts).
 */
export function threadedReads(file: string, opts: { walLimitBytes: number; nice: number; activity?: CaptureActivity }): RequestReads {
  const readers = readerPool(file, { walLimitBytes: opts.walLimitBytes, nice: opts.nice, activity: opts.activity });
  const deleter = readerPool(file, { walLimitBytes: opts.walLimitBytes, nice: 0, size: 1, activity: opts.activity });
  return {
    list: (plan) => readers.list(plan),
    walk: (plan) => readers.walk(plan),
    deleteMatching: (plan) => deleter.deleteMatching(plan),
    deleteTokenRequests: (tokenId) => deleter.deleteTokenRequests(tokenId),
    async close() {
      await Promise.all([readers.close(), deleter.close()]);
    },
  };
}
