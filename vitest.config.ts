import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Three tiers (CONTRIBUTING.md, "Tests"): `npm test` runs unit and integration, `npm run test:slow`
// the slow tier, `npm run test:all` (and CI) all three. A file belongs to the first tier it matches,
// from slow to unit; a new file lands in unit or integration by where it lives. Each project sets
// its own include: with `extends: true` a root include would be merged into every project's.

const ROOTS = ['core', 'bench', 'plugins', 'test', 'examples', 'scripts', 'cli', 'packages'].map((dir) => `${dir}/**/*.test.ts`);

/** Real browsers, seeded databases, several processes, timing under load: minutes, not seconds. */
export const SLOW = [
  'test/browser/**/*.test.ts',
  'core/store/sqlite/requests/**/reader-pool.test.ts',
  'core/store/sqlite/requests/**/catch-up.test.ts',
  'core/store/sqlite/requests/**/search-tokens.test.ts',
  'core/store/sqlite/requests/**/writer.test.ts',
  'core/store/sqlite/requests/**/trim-to.test.ts',
  'core/store/sqlite/requests/**/wal-gate.test.ts', // timing of overlapping reader threads
  'core/store/sqlite/wal.test.ts', // the checkpointer thread keeping pace with steady commits
  'core/store/migrate.test.ts',
  'core/store/mongo/requests.test.ts', // thousands of requests on a MongoDB emulator of its own
  'core/scheduler/scheduler.test.ts', // two processes sharing schedules, waiting out ticks
  'core/lifecycle/shutdown.test.ts', // a service process stopped mid-capture
  'core/lifecycle/young-generation.test.ts',
  'core/lifecycle/startup.test.ts',
  'test/multi-instance.test.ts',
  'test/realtime-multiprocess.test.ts',
  'test/full-disk.test.ts',
  'test/readme.test.ts',
  'test/capture-cli.test.ts',
  'test/capture-send.test.ts', // a `capture send` process per case, like capture-cli
  'test/bad-input.test.ts', // every route with every bad input: thousands of requests
  'test/fuzz.test.ts', // time-boxed fuzzing, and a service process
  'scripts/cli.test.ts', // `npm run cli` processes
  'packages/client/**/*.test.ts',
];

/** The service (or one of its servers) over a socket, real peers, the built tree: seconds each. */
export const INTEGRATION = [
  'test/**/*.test.ts',
  '**/*.e2e.test.ts',
  'core/http/**/*.test.ts',
  'core/mail/**/*.test.ts',
  'core/dns/**/*.test.ts',
  'core/realtime/**/*.test.ts',
  'examples/**/*.test.ts',
  'plugins/*/test/**/*.test.ts',
];

/**
 * Unit and integration files share a worker and its module cache (isolate: false): importing the
 * service's module graph again for every file was most of `npm test`'s time (the plugin tests took a
 * third of the time once shared). What this asks of a test file: it undoes what it changes in the
 * process (vi.stubEnv → vi.unstubAllEnvs, fake timers → real ones, servers closed in afterAll), and
 * keeps no state in module scope that another file's run could see. The slow tier keeps a fresh
 * process per file: its files measure time and memory. VITEST_ISOLATE=1 isolates every file, to
 * tell a file that depends on another's leftovers from a real failure.
 */
const ISOLATE_EACH_FILE = process.env.VITEST_ISOLATE === '1';

/**
 * Unit and integration files run in at least two workers. Vitest's default is one fewer than the
 * cores, one on a 2-core machine, and these files wait on sockets, child processes and real peers
 * more than they compute, and two workers take `npm test` about 40% less time there (figures in
 * bench/RESULTS.md). The slow tier keeps the default, its files measuring time under load.
 */
const SHARED_TIER_WORKERS = Math.max(2, os.availableParallelism() - 1);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'slow', include: SLOW } },
      { extends: true, test: { name: 'integration', include: INTEGRATION, exclude: [...configDefaults.exclude, ...SLOW], isolate: ISOLATE_EACH_FILE, maxWorkers: SHARED_TIER_WORKERS } },
      { extends: true, test: { name: 'unit', include: ROOTS, exclude: [...configDefaults.exclude, ...SLOW, ...INTEGRATION], isolate: ISOLATE_EACH_FILE, maxWorkers: SHARED_TIER_WORKERS } },
    ],
  },
});
