// Picks the adapter from configuration: MongoDB when MONGODB_URI is set, SQLite otherwise.
import path from 'node:path';
import { redactUrl, type Config } from '../config.js';
import { createSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';

export async function openStore(config: Config): Promise<Store> {
  if (config.MONGODB_URI) {
    const { createMongoStore } = await import('./mongo/index.js');
    return createMongoStore(config.MONGODB_URI);
  }
  const file = sqliteFile(config);
  // Bodies past BODY_FILE_THRESHOLD go to files beside the database (not for an in-memory one).
  const bodyFiles = file !== ':memory:' && config.BODY_FILE_THRESHOLD > 0 ? { dir: path.join(config.dataDir, 'bodies'), threshold: config.BODY_FILE_THRESHOLD, sweepEveryMs: 60_000 } : undefined;
  return createSqliteStore(file, {
    synchronous: config.SQLITE_SYNCHRONOUS,
    writer: config.SQLITE_WRITER,
    writerNice: config.SQLITE_WRITER_NICE,
    readerNice: config.SQLITE_READER_NICE,
    bodyFiles,
    searchIndexAbove: config.SEARCH_INDEX_ABOVE,
  });
}

/** The SQLite database file of a configuration (`:memory:` for an in-memory store). */
export function sqliteFile(config: Pick<Config, 'dataDir'>): string {
  return config.dataDir === ':memory:' ? ':memory:' : path.join(config.dataDir, 'capture.sqlite');
}

/** Where the data lives, fit to print: the SQLite file, or the MongoDB URI without its password. */
export function storeLocation(config: Pick<Config, 'dataDir' | 'MONGODB_URI'>): string {
  return config.MONGODB_URI ? `MongoDB ${redactUrl(config.MONGODB_URI)}` : `SQLite ${sqliteFile(config)}`;
}

export type * from './types.js';
