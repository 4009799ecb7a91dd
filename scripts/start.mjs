// `npm start`: runs the compiled server. `npm ci` already built it (the `prepare` script); this
// rebuilds only when dist/ is missing or older than the sources, and says so, since it takes a while.
import { spawn } from 'node:child_process';
import os from 'node:os';
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
// The service's node flags (core/lifecycle/node-flags.ts says which and why): V8 reads them only
// when it starts, so the server runs as a child unless node was given them all already.
const { missingServiceFlags } = await import(pathToFileURL(path.join(root, 'dist', 'core', 'lifecycle', 'node-flags.js')).href);
const nodeFlags = missingServiceFlags();
const main = path.join(root, 'dist', 'core', 'main.js');
if (!nodeFlags.length) {
  await import(pathToFileURL(main).href);
} else {
  const child = spawn(process.execPath, [...nodeFlags, ...process.execArgv, main], { stdio: 'inherit' });
  // The service shuts down cleanly on these; this process waits for it and exits as it did.
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
}
