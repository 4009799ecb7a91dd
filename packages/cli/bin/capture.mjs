#!/usr/bin/env node
// The `capture` command. `npm ci` links it as node_modules/.bin/capture (this is a workspace of the
// repository), so `npx capture ...` in a clone runs it at once; `npm install -g ./packages/cli`
// puts it on the PATH. It runs the compiled command line in dist/ (built by `npm ci`), building it
// first only when dist/ is missing or older than the sources (as `npm start` does). The build's
// messages go to stderr, so stdout stays the command's own output.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, staleReason } from '../../../scripts/build.mjs';

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
