// `npm start`: runs the compiled server. `npm ci` already built it (the `prepare` script); this
// rebuilds only when dist/ is missing or older than the sources, and says so, since it takes a while.
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { build, root, staleReason } from './build.mjs';

const reason = staleReason();
if (reason) {
  process.stderr.write(`building (${reason === 'no build yet' ? 'first run' : reason}, about a minute)...\n`);
  const started = Date.now();
  const code = build();
  if (code !== 0) {
    process.stderr.write(`build failed (exit ${code}): see the compiler's messages above\n`);
    process.exit(code);
  }
  process.stderr.write(`built in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
await import(pathToFileURL(path.join(root, 'dist', 'core', 'main.js')).href);
