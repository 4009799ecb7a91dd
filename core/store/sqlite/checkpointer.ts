// WAL checkpoints on a worker thread. SQLite's automatic checkpoint runs inside a COMMIT on the
// event loop and fsyncs there, stalling every capture waiting behind it; a second connection on a
// worker copies the WAL back into the database instead. Crash safety is unchanged: with
// synchronous=NORMAL the WAL is what makes a commit durable, and checkpoints only move it. The
// worker starts only once the WAL has grown (CHECKPOINTER_START_BYTES).
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('journal_size_limit = ' + workerData.walLimitBytes);
const checkpoint = (mode) => { try { db.pragma('wal_checkpoint(' + mode + ')'); } catch {} };
// A checkpoint that holds writers back (RESTART, TRUNCATE): it waits a few ms at most for them.
const holdingWriters = (mode) => {
  db.pragma('busy_timeout = ' + workerData.truncateWaitMs);
  checkpoint(mode);
  db.pragma('busy_timeout = 5000');
};
const walSize = () => { try { return fs.statSync(workerData.file + '-wal').size; } catch { return 0; } };
// A frame in the WAL: a page and its header.
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
// Past the limit: the WAL is over, and the parent holds back new reads (wal-gate.ts) until it is cut.
let over = false;
const setOver = (v) => { if (v !== over) { over = v; parentPort.postMessage({ t: 'wal', over: v }); } };
let timer = null;
let lastPassive = 0;
// Frames in the WAL when the last PASSIVE checkpoint ran.
let frames = 0;
// Whether the last PASSIVE checkpoint copied every frame back (no reader held an old snapshot).
const passive = () => {
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    frames = r.log;
    return r.busy === 0 && r.log === r.checkpointed;
  } catch {
    return false;
  }
};
const tick = () => {
  const now = Date.now();
  let complete = false;
  if (over || now - lastPassive >= workerData.everyMs) {
    lastPassive = now;
    complete = passive();
  }
  // Under steady commits SQLite never starts the WAL over by itself: a writer does so only when it
  // finds every frame copied back, and frames come in while a PASSIVE checkpoint copies. The WAL
  // would grow to its bound and be cut to nothing, and the file system allocate every block of it
  // again (about 2% of a capture's CPU under load, measured). Past half the bound, right after a
  // PASSIVE checkpoint that copied every frame, a RESTART one copies what came since and has the
  // next writer start the WAL over, at the start of the same file: its blocks are written again,
  // not allocated.
  if (complete && frames * frameBytes > workerData.restartBytes && walSize() <= workerData.walLimitBytes) holdingWriters('RESTART');
  // A reader on an old snapshot keeps SQLite from starting the WAL over, and so do commits that
  // keep coming while a checkpoint runs: it grows. Past the limit (a stat every checkEveryMs),
  // the parent stops starting reads, and once a PASSIVE checkpoint (which never holds writers
  // back) has copied every frame, the reads running having ended, a truncating one cuts the WAL:
  // it holds new writers back while it runs, so it runs only when there is next to nothing left
  // to copy, waiting a few ms at most. Tried again every overEveryMs.
  if (walSize() > workerData.walLimitBytes) {
    setOver(true);
    if (complete) holdingWriters('TRUNCATE');
  }
  setOver(walSize() > workerData.walLimitBytes);
  timer = setTimeout(tick, over ? workerData.overEveryMs : workerData.checkEveryMs);
};
timer = setTimeout(tick, workerData.checkEveryMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearTimeout(timer);
  checkpoint('TRUNCATE');
  db.close();
  parentPort.postMessage('stopped');
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * The WAL's bound: a writer that starts the WAL over cuts the file back to it (journal_size_limit,
 * set on every connection that writes), the worker has the WAL started over past half of it, and
 * truncates it when it has grown past it all the same (a reader held an old snapshot).
 */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * WAL size at which the worker starts. An idle or lightly used service never grows the WAL this far
 * between its own commits' restarts, so it does not pay the thread (about 16 MB of RSS) at all.
 */
export const CHECKPOINTER_START_BYTES = 4 * 1024 * 1024;

const walSize = (file: string): number => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/** How often the worker looks at the WAL's size (a stat). */
const CHECK_EVERY_MS = 100;
/** While the WAL is over its bound: truncation attempts this often, each waiting this long at most. */
const OVER_EVERY_MS = 20;
const TRUNCATE_WAIT_MS = 5;

export function startCheckpointer(
  db: Database,
  file: string,
  everyMs = 500,
  onFallback?: () => void,
  walLimitBytes = WAL_LIMIT_BYTES,
  startBytes = CHECKPOINTER_START_BYTES,
  /** Told when the WAL passes its bound (true) and when it is back under it (false). */
  onWalOver?: (over: boolean) => void,
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  db.pragma('wal_autocheckpoint = 0');
  let worker: Worker | null = null;
  let alive = true;
  // Without the worker, SQLite must checkpoint by itself again, or the WAL would grow forever.
  const fallBack = () => {
    onWalOver?.(false);
    if (!alive) return;
    alive = false;
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
    onFallback?.();
  };
  const spawn = () => {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver,
        file,
        everyMs,
        walLimitBytes,
        restartBytes: walLimitBytes / 2,
        checkEveryMs: Math.min(everyMs, CHECK_EVERY_MS),
        overEveryMs: OVER_EVERY_MS,
        truncateWaitMs: TRUNCATE_WAIT_MS,
      },
    });
    w.unref();
    w.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && (m as { t?: unknown }).t === 'wal') onWalOver?.((m as { over: boolean }).over);
    });
    w.on('error', fallBack);
    w.on('exit', fallBack);
    return w;
  };
  // Until the WAL passes startBytes, a stat per tick is all this costs. A WAL bound below it
  // starts the worker at the bound, which it must keep.
  const startAt = Math.min(startBytes, walLimitBytes);
  const probe = setInterval(() => {
    if (walSize(file) < startAt) return;
    clearInterval(probe);
    worker = spawn();
  }, everyMs);
  probe.unref();
  return {
    stop() {
      clearInterval(probe);
      if (!alive) return Promise.resolve();
      if (!worker) {
        alive = false;
        // What the worker would have done on its way out: copy the WAL back and cut it.
        if (db.open) {
          try {
            db.pragma('wal_checkpoint(TRUNCATE)');
          } catch {
            // busy with another process's reader: the next start copies it back
          }
        }
        return Promise.resolve();
      }
      const w = worker;
      onWalOver?.(false);
      return new Promise<void>((resolve) => {
        const done = () => {
          alive = false;
          void w.terminate().finally(resolve);
        };
        w.on('message', (m: unknown) => m === 'stopped' && done());
        w.once('exit', () => resolve());
        w.postMessage('stop');
        setTimeout(done, 3000).unref();
      });
    },
  };
}
