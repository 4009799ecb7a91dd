// A full disk (or quota) is an expected condition. A write that fails for lack of space is answered
// 507 (InsufficientStorage), not 500, and /readyz says 503 until writes go through again. The store
// learns it from the failures themselves, so a write that succeeds pays nothing: SQLite's
// SQLITE_FULL and the file system's ENOSPC and EDQUOT say it outright; a SQLite I/O error that a
// full disk may also cause (a quota's EDQUOT is SQLITE_IOERR_WRITE, a -shm file that cannot grow
// SQLITE_IOERR_SHMSIZE) counts when a probe write fails for lack of space too.
//
// Writes are never refused up front: each one is tried, so the first to fit after space returns
// is stored. Whether writes go through again is decided by a probe write of PROBE_BYTES in each
// watched folder, at most every PROBE_EVERY_MS (a failed write counts as one): made when /readyz
// asks (a balancer sends no captures to an instance that is not ready) or when a capture is
// committed. Not the commit itself: on a nearly full disk a small capture fits where a large one
// does not, and readiness would flip with every capture.
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InsufficientStorage } from '../errors.js';

/** Error codes that mean the write found no room. */
const OUT_OF_SPACE = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);
/** SQLite's I/O errors that lack of space may cause, among other things (better-sqlite3 does not give the errno). */
const MAYBE_OUT_OF_SPACE = new Set(['SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_SHMSIZE', 'SQLITE_IOERR_TRUNCATE', 'SQLITE_IOERR_FSYNC']);

/** While writes are refused, the least time between two probes (a failed write counts as one). */
export const PROBE_EVERY_MS = 5_000;
/** What a probe writes: room for a group commit of small captures, so that ready means they fit. */
export const PROBE_BYTES = 64 * 1024;

const codeOf = (err: unknown): string => String((err as { code?: unknown } | null)?.code ?? '');

/** Whether the error says outright that a write found no room. */
export const isOutOfSpace = (err: unknown): boolean => OUT_OF_SPACE.has(codeOf(err));

/** What the store tells /readyz (Store.space). */
export interface StorageSpace {
  /** Why writes are refused for lack of space; null while they go through. */
  refused(): Promise<string | null>;
  /** Told when writes start (a reason) or stop (null) being refused: the service logs it. */
  onChange: ((refused: string | null) => void) | null;
}

export interface SpaceWatch extends StorageSpace {
  /**
   * A write failed with `err`: returns the error to throw, InsufficientStorage when it failed for
   * lack of space (writes are then refused), else `err` itself. Never rejects.
   */
  failed(err: unknown): Promise<unknown>;
  /** A write went through: while writes are refused, a probe when one is due (one comparison when they are not). */
  succeeded(): void;
}

/** Watches writes to `dirs` (the folders the store writes in); `now` is the clock of the probe's interval. */
export function createSpaceWatch(dirs: string[], now: () => number = Date.now): SpaceWatch {
  const probeName = `.space-probe-${process.pid}-${randomBytes(4).toString('hex')}`;
  let reason: string | null = null;
  /** When the last probe ran or a write failed for lack of space, and what the probe found (null: it went through). */
  let probedAt = -Infinity;
  let probed: unknown = null;
  let probing: Promise<unknown> | null = null;

  function refuse(code: string): InsufficientStorage {
    probedAt = now();
    probed = Object.assign(new Error(code), { code });
    if (reason === null) {
      // The code only: a message may hold a path, and /readyz answers anyone.
      reason = `no storage space left (${code}); ready again once space is freed`;
      watch.onChange?.(reason);
    }
    return new InsufficientStorage();
  }
  function accept(): void {
    if (reason === null) return;
    reason = null;
    watch.onChange?.(null);
  }
  /** A write of PROBE_BYTES in each folder, removed at once: its error, or null. One at a time. */
  function probe(): Promise<unknown> {
    probedAt = now();
    probing ??= (async () => {
      for (const dir of dirs) {
        const file = path.join(dir, probeName);
        try {
          await writeFile(file, Buffer.alloc(PROBE_BYTES));
        } catch (err) {
          return err;
        } finally {
          await rm(file, { force: true }).catch(() => undefined);
        }
      }
      return null;
    })().then((outcome) => {
      probing = null;
      return (probed = outcome);
    });
    return probing;
  }
  /** The last probe's outcome, probing again when it is older than PROBE_EVERY_MS. */
  const probedLately = (): Promise<unknown> => (now() - probedAt >= PROBE_EVERY_MS ? probe() : (probing ?? Promise.resolve(probed)));

  const watch: SpaceWatch = {
    onChange: null,
    async failed(err) {
      if (err instanceof InsufficientStorage) return err;
      const code = codeOf(err);
      if (OUT_OF_SPACE.has(code)) return refuse(code);
      if (!MAYBE_OUT_OF_SPACE.has(code)) return err;
      // Refused already: the same cause, most likely. Else a probe says whether it is space.
      if (reason !== null || isOutOfSpace(await probedLately())) return refuse(code);
      return err;
    },
    succeeded() {
      if (reason !== null && now() - probedAt >= PROBE_EVERY_MS) void probe().then((outcome) => outcome === null && accept());
    },
    async refused() {
      if (reason === null) return null;
      const outcome = await probedLately();
      if (outcome === null) accept();
      return reason;
    },
  };
  return watch;
}

/**
 * `repo` with every method's failure for lack of space turned into InsufficientStorage (and told
 * to `watch`); the methods named in `except` are left as they are (they report their own).
 */
export function refusingWhenFull<T extends object>(repo: T, watch: SpaceWatch, except: ReadonlyArray<keyof T> = []): T {
  const out: Record<string, unknown> = {};
  for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(repo))) {
    const method = d.value as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (typeof method !== 'function' || except.includes(key as keyof T)) {
      Object.defineProperty(out, key, d);
      continue;
    }
    out[key] = async (...args: unknown[]) => {
      try {
        return await method.apply(repo, args);
      } catch (err) {
        throw await watch.failed(err);
      }
    };
  }
  return out as T;
}
