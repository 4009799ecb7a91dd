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
  'core/store/migrate.test.ts',
  'core/lifecycle/young-generation.test.ts',
  'core/lifecycle/startup.test.ts',
  'test/multi-instance.test.ts',
  'test/realtime-multiprocess.test.ts',
  'test/full-disk.test.ts',
  'test/readme.test.ts',
  'test/capture-cli.test.ts',
  'packages/client/**/*.test.ts',
];

/** The service (or one of its servers) over a socket, real peers, the built tree: seconds each. */
export const INTEGRATION = ['test/**/*.test.ts', '**/*.e2e.test.ts', 'core/http/**/*.test.ts', 'core/mail/**/*.test.ts', 'core/dns/**/*.test.ts', 'core/realtime/**/*.test.ts', 'examples/**/*.test.ts', 'plugins/*/test/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'slow', include: SLOW } },
      { extends: true, test: { name: 'integration', include: INTEGRATION, exclude: [...configDefaults.exclude, ...SLOW] } },
      { extends: true, test: { name: 'unit', include: ROOTS, exclude: [...configDefaults.exclude, ...SLOW, ...INTEGRATION] } },
    ],
  },
});
