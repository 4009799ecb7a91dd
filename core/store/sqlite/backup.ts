// An online copy of the SQLite database (`npm run cli -- backup`), safe while the service runs.
//
// SQLite's backup API copies pages in steps; a write by another connection between steps would
// make it start over. Holding one read transaction on the copying connection for the whole copy
// fixes its view (WAL mode: writers go on, into the WAL), so the copy is the database as of one
// instant and never restarts. The copy is written beside the destination and renamed into place
// once complete, so an interrupted backup never leaves a file that looks whole.
import fs from 'node:fs';
import Database from 'better-sqlite3';

/** Pages per step: progress is reported after each (4 KiB pages: 64 MiB). */
export const STEP_PAGES = 16_384;

export interface BackupResult {
  pages: number;
  bytes: number;
}

export async function backupSqlite(
  file: string,
  dest: string,
  onProgress?: (done: number, total: number) => void,
  stepPages = STEP_PAGES,
): Promise<BackupResult> {
  const db = new Database(file, { fileMustExist: true });
  const partial = `${dest}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN');
    // The read transaction starts with the first read, and holds this snapshot until COMMIT.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    const result = await db.backup(partial, {
      progress({ totalPages, remainingPages }) {
        onProgress?.(totalPages - remainingPages, totalPages);
        return stepPages;
      },
    });
    db.exec('COMMIT');
    onProgress?.(result.totalPages, result.totalPages);
    fs.chmodSync(partial, 0o600);
    fs.renameSync(partial, dest);
    return { pages: result.totalPages, bytes: fs.statSync(dest).size };
  } catch (e) {
    fs.rmSync(partial, { force: true });
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
