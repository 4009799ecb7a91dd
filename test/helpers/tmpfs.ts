// A small real file system for tests of a full disk: a tmpfs mounted on a fresh folder, filled by
// a filler file until writes fail with ENOSPC, freed by removing it. Mounting needs root (or
// CAP_SYS_ADMIN); where it is refused, tests that need one skip, naming that.
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Why a test that needs a small file system of its own was skipped. */
export const NO_TMPFS = 'skip: needs `mount -t tmpfs` (root or CAP_SYS_ADMIN) to give DATA_DIR a small file system of its own';

export interface Tmpfs {
  dir: string;
  /** Writes a filler file until the file system has no byte left, then gives `leave` bytes back (whole pages). */
  fill(leave?: number): void;
  /** Removes the filler. */
  free(): void;
  unmount(): void;
}

/** Whether this process may mount a tmpfs (tried once, on a folder of its own). */
export function canMountTmpfs(): boolean {
  const probe = mountTmpfs(1024 * 1024);
  probe?.unmount();
  return probe !== null;
}

/** Mounts a tmpfs of `bytes` on a new folder; null when this process may not mount one. */
export function mountTmpfs(bytes: number): Tmpfs | null {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmdirSync(dir);
    return null;
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill(leave = 0) {
      const fd = openSync(filler, 'a');
      try {
        // Big writes first, then smaller ones for what is left, down to a single byte.
        for (const size of [1 << 20, 1 << 16, 1 << 12, 1]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          }
        }
        if (leave) ftruncateSync(fd, fstatSync(fd).size - leave);
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmdirSync(dir);
    },
  };
}
