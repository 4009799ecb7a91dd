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
// A smaller young generation under load (V8's default lets it grow to 3 x 16 MB). It no longer
// changes the idle service's RSS: start-up holds the young generation at its first size
// (core/lifecycle/young-generation.ts), and the capture bench could not tell a throughput cost
// apart from noise (figures in bench/RESULTS.md): measure again on a quiet machine. A V8 flag only takes effect at start, so the server runs as a child
// unless the flag is already given.
const NODE_FLAGS = ['--max-semi-space-size=8'];
const main = path.join(root, 'dist', 'core', 'main.js');
const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
if (NODE_FLAGS.every((f) => given.some((g) => g.startsWith(f.split('=')[0])))) {
  await import(pathToFileURL(main).href);
} else {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...process.execArgv, main], { stdio: 'inherit' });
  // The service shuts down cleanly on these; this process waits for it and exits as it did.
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
}
