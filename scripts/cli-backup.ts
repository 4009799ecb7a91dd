// `npm run cli -- backup [--force] <file>`: a consistent copy of the server's SQLite database
// (DATA_DIR), taken with SQLite's backup API while the service runs (core/store/sqlite/backup.ts).
// A MongoDB store is refused with the tools that back it up.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../core/config.js';
import { sqliteFile, storeLocation } from '../core/store/index.js';
import { backupSqlite, bodiesBackupDir, integrityCheck } from '../core/store/sqlite/backup.js';
import { progress } from './progress.js';

const say = (text: string) => process.stderr.write(text + '\n');

/** A database this size or more gets a progress bar (smaller ones are copied in one step). */
const PROGRESS_FROM_PAGES = 16_384;

export const MONGODB_BACKUP_ADVICE =
  'MONGODB_URI is set: back up MongoDB with its own tools, `mongodump --uri="$MONGODB_URI" --archive=capture.archive --gzip` ' +
  '(restore with `mongorestore --uri="$MONGODB_URI" --archive=capture.archive --gzip --drop`), or a filesystem snapshot of a replica-set member.';

export async function backupCommand(config: Config, dest: string, force: boolean): Promise<number> {
  if (config.MONGODB_URI) {
    say(`database: ${storeLocation(config)}`);
    say(`error: ${MONGODB_BACKUP_ADVICE}`);
    return 1;
  }
  const file = sqliteFile(config);
  say(`database: ${storeLocation(config)}`);
  if (file === ':memory:' || !existsSync(file)) throw new Error(`there is no database at ${file}: set DATA_DIR to the folder the server uses`);
  const out = path.resolve(dest);
  if (out === path.resolve(file)) throw new Error('the backup cannot replace the database itself');
  if (existsSync(out) && !force) throw new Error(`${out} exists: choose a new file, or add --force to replace it`);
  const bar = progress();
  const result = await backupSqlite(file, out, (done, total) => {
    if (total >= PROGRESS_FROM_PAGES) bar.update({ what: 'backup', done, total, unit: 'pages' });
  });
  bar.end();
  const check = integrityCheck(out);
  if (check !== 'ok') {
    say(`error: the copy fails its integrity check: ${check}`);
    return 1;
  }
  process.stdout.write(`wrote ${out} (${(result.bytes / 1048576).toFixed(1)} MiB, integrity ok)\n`);
  if (result.bodyFiles) process.stdout.write(`wrote ${bodiesBackupDir(out)} (${result.bodyFiles} body files: restore it as DATA_DIR/bodies)\n`);
  return 0;
}
