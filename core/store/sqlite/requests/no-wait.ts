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
  const zero = db.prepare('PRAGMA busy_timeout = 0');
  const restore = db.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  // SQLite sets busy_timeout when the PRAGMA is prepared, and the first run of the prepared
  // statement only reads it back; later runs prepare it again, which sets it. Unprimed, the first
  // attempt that found the lock taken waited the whole busy_timeout on the event loop.
  zero.run();
  restore.run();
  return {
    busyTimeoutMs,
    run(fn) {
      zero.run();
      try {
        return fn();
      } finally {
        restore.run();
      }
    },
  };
}
