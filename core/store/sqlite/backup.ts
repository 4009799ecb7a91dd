// An online copy of the SQLite database (`npm run cli -- backup`), safe while the service runs.
//
// SQLite's backup API copies pages in steps; a write by another connection between steps would
// make it start over. Holding one read transaction on the copying connection for the whole copy
// fixes its view (WAL mode: writers go on, into the WAL), so the copy is the database as of one
// instant and never restarts. The copy is written beside the destination and renamed into place
// once complete, so an interrupted backup never leaves a file that looks whole.
//
// Bodies kept in files (DATA_DIR/bodies, core/store/bodies) go into a folder beside the copy
// (bodiesBackupDir): restored, it becomes DATA_DIR/bodies again. A body file is never rewritten in
// place, so a hard link is a copy as of that instant (a real copy across filesystems). The files are
// linked once before the snapshot starts (every request in it that existed then has its file) and
// again under it (the requests captured in between); files of requests outside the snapshot come
// along too and are swept after a restore, as any file whose request is gone.
import fs from 'node:fs';
import { copyFile, link, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Pages per step: progress is reported after each (4 KiB pages: 64 MiB). */
export const STEP_PAGES = 16_384;

export interface BackupResult {
  pages: number;
  bytes: number;
  /** Body files copied beside the database (bodiesBackupDir), 0 when it keeps none. */
  bodyFiles: number;
}

/** The folder a backup's body files go to; restored, it is DATA_DIR/bodies. */
export const bodiesBackupDir = (dest: string) => `${dest}.bodies`;

/** Links (or copies) every body file of `from` not yet in `to`; returns how many it added. */
async function linkBodies(from: string, to: string): Promise<number> {
  let added = 0;
  const tokens = (await readdir(from, { withFileTypes: true })).filter((d) => d.isDirectory() && d.name !== '.incoming');
  for (const t of tokens) {
    const dir = path.join(to, t.name);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const have = new Set(await readdir(dir));
    for (const f of await readdir(path.join(from, t.name)).catch(() => [] as string[])) {
      if (have.has(f)) continue;
      const src = path.join(from, t.name, f);
      const dst = path.join(dir, f);
      try {
        await link(src, dst).catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'EXDEV' || e.code === 'EPERM' || e.code === 'ENOTSUP') return copyFile(src, dst);
          throw e;
        });
        added++;
      } catch (e) {
        // Deleted since the listing: its request is gone too.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
  return added;
}

export async function backupSqlite(file: string, dest: string, onProgress?: (done: number, total: number) => void, stepPages = STEP_PAGES): Promise<BackupResult> {
  const db = new Database(file, { fileMustExist: true });
  const partial = `${dest}.partial`;
  const bodies = path.join(path.dirname(file), 'bodies');
  const hasBodies = fs.existsSync(bodies);
  const partialBodies = `${bodiesBackupDir(dest)}.partial`;
  fs.rmSync(partial, { force: true });
  fs.rmSync(partialBodies, { recursive: true, force: true });
  try {
    db.pragma('busy_timeout = 5000');
    let bodyFiles = 0;
    if (hasBodies) {
      fs.mkdirSync(partialBodies, { mode: 0o700 });
      bodyFiles += await linkBodies(bodies, partialBodies);
    }
    db.exec('BEGIN');
    // The read transaction starts with the first read, and holds this snapshot until COMMIT.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    const result = await db.backup(partial, {
      progress({ totalPages, remainingPages }) {
        onProgress?.(totalPages - remainingPages, totalPages);
        return stepPages;
      },
    });
    if (hasBodies) bodyFiles += await linkBodies(bodies, partialBodies);
    db.exec('COMMIT');
    onProgress?.(result.totalPages, result.totalPages);
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, dest);
    fs.rmSync(bodiesBackupDir(dest), { recursive: true, force: true });
    if (hasBodies) fs.renameSync(partialBodies, bodiesBackupDir(dest));
    return { pages: result.totalPages, bytes: fs.statSync(dest).size, bodyFiles };
  } catch (e) {
    fs.rmSync(partial, { force: true });
    fs.rmSync(partialBodies, { recursive: true, force: true });
    throw e;
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of a database file: 'ok', or what is wrong. */
export function integrityCheck(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}
