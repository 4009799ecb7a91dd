// ESLint (flat config): `npm run lint`, run by .ci/run before the tests. typescript-eslint's
// recommended rules without type information (the strict typecheck already covers what type-aware
// rules would add, and the lint stays within seconds), plus the project's import boundaries.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import capture from './scripts/lint/import-boundaries.js';

/** Node's globals, for the few plain JavaScript files (scripts, fixtures, the CLI launcher). */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'structuredClone',
    'fetch',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'performance',
    'globalThis',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  {
    // Built output and installs, test and benchmark output, generated code, declaration files.
    ignores: ['**/node_modules/', '**/dist/', 'data/', 'test/artifacts/', 'bench/results/', 'packages/client/src/api-types.ts', 'schemas/', 'web/public/', '**/*.d.ts'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: NODE_GLOBALS },
  },
  {
    // A disable comment that no longer silences anything is an error, so none outlives its reason.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { capture },
    rules: {
      'capture/import-boundaries': 'error',
      // A leading underscore names what is left out on purpose (`const { secret: _s, ...rest } = x`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Comma sequences of calls are this code's one-statement idiom (`if (x) (a.push(1), b.push(2))`);
      // tsc already refuses a left operand without side effects (TS2695).
      '@typescript-eslint/no-unused-expressions': 'off',
      // Header, query and terminal sanitising match control characters on purpose.
      'no-control-regex': 'off',
      // Wrapping errors into user-facing messages (action logs, CLI errors) is everywhere; adding
      // `cause` to each is a sweep of its own, not a lint fix.
      'preserve-caught-error': 'off',
      // A `let` read by a closure before its one assignment (a shutdown handler set up before start) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // An interface naming its one supertype (`interface StmtBase extends Position {}`) is a name, not an empty type.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // Tests read JSON bodies and drive peers whose shapes they assert on rather than declare.
    files: ['**/*.test.ts', '**/*.test.tsx', 'test/**', 'plugins/*/test/**', 'packages/*/test/**', 'bench/**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
