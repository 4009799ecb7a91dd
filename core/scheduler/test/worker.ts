// A scheduler process for the multi-process tests: opens the SQLite file given on the command line,
// runs Agenda on it, prints `ready`, and stops cleanly on SIGTERM.
//   node --import tsx worker.ts <sqlite file> <agenda name> <schedule lock lifetime ms>
import { silentLogger } from '../../logger.js';
import { createOutboundClient } from '../../net/outbound.js';
import { createSqliteStore } from '../../store/sqlite/index.js';
import { systemClock } from '../../util/time.js';
import { createScheduler } from '../scheduler.js';

const [file, name, lock] = process.argv.slice(2);
const store = createSqliteStore(file!);
const scheduler = await createScheduler(
  { store, clock: systemClock, logger: silentLogger, http: createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: true, OUTBOUND_ALLOW_PRIVATE: true }) },
  { name, processEvery: 100, scheduleLockLifetimeMs: Number(lock) },
);
await scheduler.sync();
await scheduler.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void scheduler
    .stop()
    .then(() => store.close())
    .finally(() => process.exit(0));
});
