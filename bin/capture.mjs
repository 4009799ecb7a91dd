#!/usr/bin/env node
// The `capture` command (package.json "bin"; `npx capture ...` in a clone, or after
// `npm install -g`): runs the compiled command line in dist/, building it first when dist/ is
// missing or older than the sources (as `npm start` does). The build's messages go to stderr, so
// stdout stays the command's own output.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, staleReason } from '../scripts/build.mjs';

const reason = staleReason();
if (reason) {
  process.stderr.write(`capture: building dist/ (${reason === 'no build yet' ? 'first run' : reason}, about a minute)...\n`);
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    process.stderr.write(`capture: build failed (exit ${r.status}); see the messages above\n`);
    process.exit(r.status ?? 1);
  }
}
const { run } = await import(pathToFileURL(path.join(root, 'dist', 'cli', 'main.js')).href);
await run(process.argv.slice(2));
