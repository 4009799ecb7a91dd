// The embedded default store: one SQLite file in WAL mode under DATA_DIR.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../types.js';
import { startCheckpointer, WAL_LIMIT_BYTES } from './checkpointer.js';
import { createBodyFiles, type BodyFilesOptions } from '../bodies/body-files.js';
import { createSpaceWatch, refusingWhenFull } from '../space.js';
import { sqliteCounters } from './repos/counters.js';
import { sqliteGlobals } from './repos/globals.js';
import { sqliteProviders } from './repos/providers.js';
import { sqliteDatabases } from './repos/databases.js';
import { sqliteQueueProfiles } from './repos/queue-profiles.js';
import { sqliteTemplates } from './repos/templates.js';
import { sqliteActionFailures } from './repos/action-failures.js';
import { sqliteErrorLog } from './repos/error-log.js';
import { sqliteShares } from './repos/shares.js';
import { sqliteReplays } from './repos/replays.js';
import { sqliteGroups } from './repos/groups.js';
import { sqliteListeners } from './repos/listeners.js';
import { migrate } from './migrations.js';
import { openRequestEngine, type CaptureWriter } from './requests/index.js';
import { sqliteSchedules } from './repos/schedules.js';
import { sqliteTokens } from './repos/tokens.js';
import { sqliteTransfer } from './transfer.js';
import { sqliteUsers } from './repos/users.js';
import { sqliteWorkflows } from './repos/workflows.js';

export interface SqliteOptions {
  /** NORMAL keeps every acknowledged capture through a process crash; FULL also through power loss. */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * Where captures are committed (file databases only; ':memory:' is always in-thread): 'in-thread'
   * on the main connection, between the event loop's turns; 'worker' on a writer thread with its
   * own connection, so the event loop only parses and answers. 'auto' (the default): in-thread
   * with synchronous NORMAL, where a commit is a few pwrite calls and handing it to a thread
   * costs more CPU than it saves (encoding, two thread wake-ups per batch); the worker with FULL,
   * where every commit waits for an fsync the event loop must not wait for.
   */
  writer?: 'auto' | 'worker' | 'in-thread';
  /** Niceness of the writer thread (SQLITE_WRITER_NICE); default DEFAULT_WRITER_NICE. */
  writerNice?: number;
  /** Niceness of the reader threads (SQLITE_READER_NICE); default DEFAULT_READER_NICE. */
  readerNice?: number;
  /** The WAL's bound in bytes (checkpointer.ts); default WAL_LIMIT_BYTES. */
  walLimitBytes?: number;
  /** Large bodies in files (core/store/bodies); default: in the rows. */
  bodyFiles?: BodyFilesOptions;
  /** Tokens allowed more requests than this get a search index (SEARCH_INDEX_ABOVE, requests/search/search-tokens.ts). */
  searchIndexAbove?: number;
}

/** The writer thread's niceness unless configured (requests/writer/capture-writer.ts, writer-worker.ts say why). */
export const DEFAULT_WRITER_NICE = 10;
/** The reader threads' niceness unless configured: they take what the capture path leaves. */
export const DEFAULT_READER_NICE = 19;

/**
 * Makes the database file (and its folder, when missing) readable by this user only, before SQLite
 * opens it: SQLite gives the -wal and -shm files the database file's mode, so they follow. An
 * existing file, and its -wal and -shm, are tightened too.
 */
function createPrivateFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

/** `file` is a path, or ':memory:' for tests. */
export function createSqliteStore(file: string, opts: SqliteOptions = {}): Store & { db: Database.Database; writer: CaptureWriter } {
  if (file !== ':memory:') createPrivateFile(file);
  const db = new Database(file);
  // Several processes may share the file: wait for a lock rather than fail at once. Set first, so
  // that the journal mode's PRAGMA waits too (a second instance starting beside the first failed
  // there once with "database is locked").
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${opts.synchronous ?? 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  const walLimitBytes = opts.walLimitBytes ?? WAL_LIMIT_BYTES;
  db.pragma(`journal_size_limit = ${walLimitBytes}`);
  migrate(db);
  const onFile = file !== ':memory:';
  // Writes that fail for lack of space throw InsufficientStorage (507) and make /readyz 503 until
  // they go through again (space.ts): the capture writers and body files report their own, the
  // repositories' methods are wrapped.
  const space = onFile ? createSpaceWatch([path.dirname(file), ...(opts.bodyFiles ? [opts.bodyFiles.dir] : [])]) : undefined;
  const guard = <T extends object>(repo: T, except: ReadonlyArray<keyof T> = []): T => (space ? refusingWhenFull(repo, space, except) : repo);
  const mode = !opts.writer || opts.writer === 'auto' ? (opts.synchronous === 'FULL' ? 'worker' : 'in-thread') : opts.writer;
  const engine = openRequestEngine(db, {
    file,
    synchronous: opts.synchronous ?? 'NORMAL',
    writer: mode,
    writerNice: opts.writerNice ?? DEFAULT_WRITER_NICE,
    readerNice: opts.readerNice ?? DEFAULT_READER_NICE,
    walLimitBytes,
    searchIndexAbove: opts.searchIndexAbove,
    space,
  });
  const { writer } = engine;
  const bodyFiles = opts.bodyFiles ? createBodyFiles({ ...opts.bodyFiles, space }) : undefined;
  // Not insert: the capture writer reports its failures where it settles them, at no cost per capture.
  const requests = guard(engine.requests, ['insert']);
  const checkpointer = onFile
    ? startCheckpointer(
        db,
        file,
        500,
        () => engine.checkpointerGone(),
        walLimitBytes,
        undefined,
        (over) => engine.walOver(over),
      )
    : null;
  return {
    kind: 'sqlite',
    db,
    writer,
    users: guard(sqliteUsers(db)),
    tokens: guard(sqliteTokens(db, engine)),
    requests: bodyFiles ? bodyFiles.wrap(requests) : requests,
    bodyFiles,
    space,
    counters: guard(sqliteCounters(db)),
    groups: guard(sqliteGroups(db)),
    listeners: guard(sqliteListeners(db)),
    schedules: guard(sqliteSchedules(db)),
    workflows: guard(sqliteWorkflows(db)),
    globals: guard(sqliteGlobals(db)),
    providers: guard(sqliteProviders(db)),
    databases: guard(sqliteDatabases(db)),
    queueProfiles: guard(sqliteQueueProfiles(db)),
    templates: guard(sqliteTemplates(db)),
    actionFailures: guard(sqliteActionFailures(db)),
    shares: guard(sqliteShares(db)),
    errorLog: guard(sqliteErrorLog(db)),
    replays: guard(sqliteReplays(db)),
    transfer: sqliteTransfer(db, engine.transfer),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    database: () => ({ kind: 'sqlite', db }),
    observeCaptureCommits: (observer) => engine.observeCaptureCommits(observer),
    observeCatchUps: (observer) => engine.observeCatchUps(observer),
    async close() {
      // Deletions stop after their chunk, pending captures are committed, then the threads stop,
      // then the connection closes.
      await engine.close();
      await checkpointer?.stop();
      await bodyFiles?.close();
      if (db.open) db.close();
    },
  };
}
