import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'bench/**/*.test.ts', 'plugins/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts', 'cli/**/*.test.ts', 'packages/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
