// Taking SQLite's write lock on the event loop without waiting for it. SQLite's busy handler
// sleeps on the calling thread until busy_timeout: on the event loop, every request would wait
// behind another connection's transaction. The capture writer and the deletions on the main
// connection (chunks.ts) try without waiting and come back later instead.
import type { Database } from 'better-sqlite3';

/** The write lock was taken: SQLITE_BUSY and its extended codes. */
export const isBusy = (e: unknown): boolean => String((e as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY');

export interface NoWait {
  /** The connection's own busy_timeout, which it keeps outside `run`. */
  readonly busyTimeoutMs: number;
  /** Runs `fn` with busy_timeout 0: a statement that finds the lock taken fails with SQLITE_BUSY at once. */
  run<T>(fn: () => T): T;
}

export function noWait(db: Database): NoWait {
  const busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true })) || 0;
  // SQLite sets busy_timeout while it prepares the PRAGMA, and a PRAGMA runs only once per
  // preparation: a prepared statement's later runs prepare it again (and read the value back),
  // while exec prepares, steps and finalizes it with no statement object (in-process, 0.8 µs the
  // pair against 1.45, once per commit).
  const zero = 'PRAGMA busy_timeout = 0';
  const restore = `PRAGMA busy_timeout = ${busyTimeoutMs}`;
  return {
    busyTimeoutMs,
    run(fn) {
      db.exec(zero);
      try {
        return fn();
      } finally {
        db.exec(restore);
      }
    },
  };
}
