// Picks the adapter from configuration: MongoDB when MONGODB_URI is set, SQLite otherwise.
import path from 'node:path';
import type { Config } from '../config.js';
import { createSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';

export async function openStore(config: Config): Promise<Store> {
  if (config.MONGODB_URI) {
    const { createMongoStore } = await import('./mongo/index.js');
    return createMongoStore(config.MONGODB_URI);
  }
  const file = config.dataDir === ':memory:' ? ':memory:' : path.join(config.dataDir, 'capture.sqlite');
  return createSqliteStore(file, { synchronous: config.SQLITE_SYNCHRONOUS, writer: config.SQLITE_WRITER, writerNice: config.SQLITE_WRITER_NICE });
}

export type * from './types.js';
