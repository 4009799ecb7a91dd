// Compiles the package into dist/: ESM with declarations (dist/index.js, dist/index.d.ts) and a
// CommonJS copy for require() (dist/cjs/). Run by the repository's build (`npm ci`) and before
// `npm pack`. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));

/** Builds dist/; returns the exit code of the first step that failed, or 0. */
export function buildClient() {
  rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
    const r = spawnSync(process.execPath, [tsc, '-p', path.join(dir, project)], { stdio: 'inherit' });
    if (r.status !== 0) return r.status ?? 1;
  }
  // dist/cjs/*.js are CommonJS although the package is "type": "module".
  mkdirSync(path.join(dir, 'dist', 'cjs'), { recursive: true });
  writeFileSync(path.join(dir, 'dist', 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }) + '\n');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(buildClient());
