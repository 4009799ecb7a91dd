// A reader thread: its own connections to the store's file, running request lists and searches
// (read-only connection; WAL lets it read while captures commit), a deletion's matches (which the
// event loop's connection deletes: chunks.ts) and, beside a writer thread, chunked deletions (a
// second, writing connection, opened on the first deletion) off the event loop. One job at a time:
// the pool (reader-pool.ts) sends the next only once this one answered.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { chunkPause, deleteMatching, deleteTokenRequests, timedMatches } from './chunks.js';
import { readList, readWalk } from './request-reads.js';
import type { FromReader, ReaderData, ReaderJob, ToReader } from './reader-protocol.js';
import { giveWay, loopBusy, MAX_READ_WAIT_MS, READ_SHARE_WHILE_BUSY } from '../capture-activity.js';
import { idleClass, IDLE_NICE, nice } from '../threads.js';

const data = workerData as ReaderData;
const port = parentPort!;

// Searches and deletions give way to the event loop (threads.ts says why); at the lowest
// priority, lists and searches also take the idle class, which the event loop preempts at once.
if (nice(data.nice) === IDLE_NICE) idleClass();

const reader = new Database(data.file, { readonly: true, fileMustExist: true });
reader.pragma('busy_timeout = 5000');
// SQLite's own default page cache (2,000 KiB) rather than the driver's 16 MB: the cache is emptied
// whenever a read begins after a capture committed, so it mostly serves one list's statements, and
// a search over a million requests filled all 16 MB, kept as RSS (the bench's big token).
reader.pragma('cache_size = -2000');
let writer: Database.Database | null = null;
let stopping = false;

function writing(): Database.Database {
  if (writer) return writer;
  writer = new Database(data.file, { fileMustExist: true });
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  writer.pragma(`journal_size_limit = ${data.walLimitBytes}`);
  // The checkpointer thread copies the WAL back; a deletion's commits must not do it themselves.
  writer.pragma('wal_autocheckpoint = 0');
  return writer;
}

/** When the last list or search ended, and how long it took. */
let lastEnd = 0;
let lastMs = 0;

/**
 * Runs a list or search, after waiting its turn while the event loop is saturated: this thread
 * then keeps to READ_SHARE_WHILE_BUSY of the time (capture-activity.ts says why).
 */
async function read<T>(fn: () => T): Promise<T> {
  if (loopBusy(data.activity)) {
    const wait = Math.min(MAX_READ_WAIT_MS, lastEnd + giveWay(lastMs, READ_SHARE_WHILE_BUSY) - performance.now());
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    lastEnd = performance.now();
    lastMs = lastEnd - t0;
  }
}

/** Between a deletion's chunks, the capture writer takes the lock; false once stopping. */
const pauseBetweenChunks = () => chunkPause(data.activity, () => !stopping);

async function run(job: ReaderJob): Promise<unknown> {
  if (job.op === 'list') return read(() => readList(reader, job.plan));
  if (job.op === 'walk') return read(() => readWalk(reader, job.plan));
  if (job.op === 'deleteMatching') return deleteMatching(reader, writing(), job.plan, pauseBetweenChunks());
  // Not waiting its turn as lists do: the deletion on the event loop keeps to its share of the
  // time, this read included (chunks.ts).
  if (job.op === 'matches') return timedMatches(reader, job.plan, job.cursor);
  return deleteTokenRequests(writing(), job.tokenId, pauseBetweenChunks());
}

let busy: Promise<void> = Promise.resolve();

port.on('message', (m: ToReader) => {
  if (m.t === 'stop') {
    // A deletion in progress stops after its current chunk; then the connections close (a thread
    // terminated inside a transaction would keep its lock for the rest of the process).
    stopping = true;
    void busy.finally(() => {
      reader.close();
      writer?.close();
      port.postMessage({ t: 'stopped' } satisfies FromReader);
    });
    return;
  }
  busy = run(m.job).then(
    (value) => port.postMessage({ t: 'done', id: m.id, value } satisfies FromReader),
    (e: unknown) => {
      const err = e as { message?: string; code?: string };
      port.postMessage({ t: 'failed', id: m.id, error: { message: err?.message ?? String(e), code: err?.code } } satisfies FromReader);
    },
  );
});
