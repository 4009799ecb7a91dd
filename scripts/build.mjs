// Compiles the server (tsc) and the web page (vite) into dist/, and the @capture/client package
// into packages/client/dist/, then records which sources it built from, so `npm start` and the
// `capture` command can tell whether the build is current without compiling anything.
// Plain JavaScript: it has to run before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildClient } from '../packages/client/scripts/build.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));
const stampFile = path.join(root, 'dist', '.build-stamp.json');
// What the compiled output depends on: the sources tsc and vite read, and their settings.
const SOURCE_DIRS = ['core', 'plugins', 'web', 'bench', 'scripts', 'cli', 'packages'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
// Tests are not compiled into dist/ (tsconfig.build.json excludes them), so editing one needs no build.
const SKIP = new Set(['node_modules', 'dist', 'results', 'artifacts', 'test']);
const skipped = (name) => SKIP.has(name) || name.endsWith('.test.ts') || name.endsWith('.contract.ts');

/** The newest modification time (ms) among the sources, and how many files were looked at. */
export function newestSource() {
  let newest = 0;
  let files = 0;
  const visit = (p) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) if (!skipped(name)) visit(path.join(p, name));
    } else {
      files++;
      if (st.mtimeMs > newest) newest = st.mtimeMs;
    }
  };
  for (const d of SOURCE_DIRS) visit(path.join(root, d));
  for (const f of SOURCE_FILES) visit(path.join(root, f));
  return { newest, files };
}

/** Why dist/ must be rebuilt, or null when it is current. */
export function staleReason() {
  if (!existsSync(path.join(root, 'dist', 'core', 'main.js')) || !existsSync(path.join(root, 'packages', 'client', 'dist', 'index.js'))) return 'no build yet';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return 'no build stamp';
  }
  return newestSource().newest > stamp.newestSource ? 'sources changed since the last build' : null;
}

function run(args) {
  const bin = path.join(root, 'node_modules', '.bin', args[0]);
  const r = spawnSync(bin, args.slice(1), { cwd: root, stdio: 'inherit' });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

/**
 * Makes `@capture/sdk` resolve to the compiled SDK inside dist/. Its package.json points at the .ts
 * sources (tsx, vitest and tsc read those); compiled code under dist/ (core, plugins, scripts) finds
 * dist/node_modules/@capture/sdk first, a link to dist/packages/sdk with the same exports map in .js.
 */
export function linkCompiledSdk() {
  const manifest = JSON.parse(readFileSync(path.join(root, 'packages', 'sdk', 'package.json'), 'utf8'));
  const toJs = (value) => (typeof value === 'string' ? value.replace(/\.ts$/, '.js') : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJs(v)])));
  manifest.exports = toJs(manifest.exports);
  writeFileSync(path.join(root, 'dist', 'packages', 'sdk', 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  const link = path.join(root, 'dist', 'node_modules', '@capture', 'sdk');
  mkdirSync(path.dirname(link), { recursive: true });
  rmSync(link, { force: true, recursive: true });
  symlinkSync(path.join('..', '..', 'packages', 'sdk'), link, 'dir');
  return 0;
}

/** Builds dist/; returns the exit code of the first step that failed, or 0. */
export function build() {
  // Taken before compiling: a source edited during the build makes the next start build again.
  const { newest } = newestSource();
  const code = run(['tsc', '-p', 'tsconfig.build.json']) || linkCompiledSdk() || buildClient() || run(['vite', 'build', '--config', 'web/vite.config.ts']);
  if (code === 0) writeFileSync(stampFile, JSON.stringify({ newestSource: newest, builtAt: new Date().toISOString() }) + '\n');
  return code;
}

// `node scripts/build.mjs` always builds; with --if-stale only when dist/ is not current.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exit(process.argv.includes('--if-stale') && !staleReason() ? 0 : build());
}
