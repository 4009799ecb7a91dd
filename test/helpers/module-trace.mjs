// Records which modules a process loads, for tests of what start-up imports. Load it with
// `node --import <this file>` and name a file in MODULE_TRACE_FILE: every ES module the process
// resolves is appended to it as it happens (module-trace-hooks.mjs), and the CommonJS files it
// loaded (require.cache) when it exits. Plain JavaScript: it runs before any TypeScript loader.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.MODULE_TRACE_FILE;
if (file) {
  register('./module-trace-hooks.mjs', import.meta.url);
  const require = createRequire(import.meta.url);
  process.on('exit', () => appendFileSync(file, Object.keys(require.cache).join('\n') + '\n'));
}
