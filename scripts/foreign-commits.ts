// For the measure-* scripts: another connection committing `rate` times a second (as captures or a
// bulk deletion's chunks do). Each commit makes every other connection's next read transaction
// start with an empty page cache, which in-process timings otherwise never see.
import { createSqliteStore } from '../core/store/sqlite/index.js';

/** Starts the commits on `file` (none when rate is 0); stop() ends them and closes the connection. */
export function foreignCommits(file: string, rate: number): { stop(): Promise<void> } {
  if (!rate) return { stop: async () => {} };
  const store = createSqliteStore(file, { writer: 'in-thread' });
  store.db.exec('CREATE TABLE IF NOT EXISTS measure_foreign (n INTEGER)');
  const commit = store.db.prepare('INSERT INTO measure_foreign VALUES (1)');
  const timer = setInterval(() => commit.run(), 1000 / rate);
  return {
    async stop() {
      clearInterval(timer);
      await store.close();
    },
  };
}
