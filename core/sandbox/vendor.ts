// Generated library sources for the sandbox: packages that ship no single-file build usable inside
// QuickJS (cheerio, @faker-js/faker) are bundled with esbuild into one CommonJS file, and lodash's
// per-method modules are minified, the first time a worker needs them. The output is cached in a
// private directory under the OS temp dir (keyed by the package and esbuild versions), so a fresh
// clone needs nothing but `npm ci`: no network, no build step. Runs on the host (worker thread),
// never inside a script's context.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const nodeRequire = createRequire(import.meta.url);

/** Bump when the way bundles are generated changes (invalidates every cached file). */
const GENERATOR_VERSION = 1;

interface EsbuildOutputFile {
  path: string;
  text: string;
}
interface Esbuild {
  version: string;
  buildSync(options: Record<string, unknown>): { outputFiles?: EsbuildOutputFile[] };
}

let esbuildModule: Esbuild | null | undefined;
function esbuild(): Esbuild | null {
  if (esbuildModule === undefined) {
    try {
      esbuildModule = nodeRequire('esbuild') as Esbuild;
    } catch {
      esbuildModule = null;
    }
  }
  return esbuildModule;
}

/** The directory of an installed package (works for packages whose `exports` hide package.json). */
export function packageDir(pkg: string): string {
  for (const base of nodeRequire.resolve.paths(pkg) ?? []) {
    const dir = join(base, pkg);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  throw new Error(`package ${pkg} is not installed`);
}

export function packageVersion(pkg: string): string {
  const json = JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as { version?: unknown };
  return String(json.version ?? '0');
}

/** A directory only this user can write to, or null when none can be had (then nothing is cached on disk). */
let cacheDirValue: string | null | undefined;
function cacheDir(): string | null {
  if (cacheDirValue !== undefined) return cacheDirValue;
  cacheDirValue = null;
  try {
    const uid = typeof process.getuid === 'function' ? process.getuid() : null;
    const dir = join(tmpdir(), `capture-sandbox-vendor-${uid ?? 'user'}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    // Someone else's directory (or a writable-by-others one) could hold planted sources: do not use it.
    if (!st.isDirectory() || (uid !== null && st.uid !== uid) || (st.mode & 0o022) !== 0) return null;
    cacheDirValue = dir;
  } catch {
    cacheDirValue = null;
  }
  return cacheDirValue;
}

const memo = new Map<string, string>();

/**
 * The cached output of `build` for `key` (whose parts must name everything the output depends on),
 * built now when there is none.
 */
function cached(name: string, keyParts: string[], build: () => string): string {
  const key = createHash('sha256')
    .update(JSON.stringify([GENERATOR_VERSION, ...keyParts]))
    .digest('hex')
    .slice(0, 20);
  const id = `${name}-${key}`;
  const hit = memo.get(id);
  if (hit !== undefined) return hit;
  const dir = cacheDir();
  const file = dir === null ? null : join(dir, `${id}.js`);
  if (file !== null) {
    try {
      const text = readFileSync(file, 'utf8');
      memo.set(id, text);
      return text;
    } catch {
      // not built yet
    }
  }
  const text = build();
  memo.set(id, text);
  if (file !== null) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, file); // atomic: concurrent workers may race, both write the same content
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // ignore
      }
    }
  }
  return text;
}

function requireEsbuild(what: string): Esbuild {
  const e = esbuild();
  if (!e) throw new Error(`${what} is not available: its bundle cannot be generated (esbuild is not installed)`);
  return e;
}

/**
 * One CommonJS bundle (browser conditions, minified) of `entry`, resolved from `pkg`'s installation.
 * `entry` is CommonJS source such as `module.exports = require('cheerio')`.
 */
export function bundle(name: string, pkg: string, entry: string): string {
  const version = packageVersion(pkg);
  const e = esbuild();
  return cached(name, [name, pkg, version, entry, e?.version ?? 'none'], () => {
    const eb = requireEsbuild(name);
    const result = eb.buildSync({
      stdin: { contents: entry, resolveDir: packageDir(pkg), loader: 'js', sourcefile: `${name}-entry.js` },
      bundle: true,
      format: 'cjs',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      legalComments: 'none',
      write: false,
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const out = result.outputFiles?.[0]?.text;
    if (!out) throw new Error(`${name}: esbuild produced no output`);
    return out;
  });
}

/**
 * lodash's per-method CommonJS modules (`lodash/map.js`, `lodash/_baseIteratee.js`...), minified
 * when esbuild is there (the sources are mostly JSDoc), as name -> source.
 */
let lodashModulesValue: Map<string, string> | undefined;
export function lodashModules(): Map<string, string> {
  if (lodashModulesValue) return lodashModulesValue;
  const dir = packageDir('lodash');
  const names = readdirSync(dir)
    .filter((f) => /^[A-Za-z0-9_]+\.js$/.test(f) && !/^(lodash|core|fp)(\.min)?\.js$/.test(f) && !f.includes('.min.'))
    .map((f) => f.slice(0, -3))
    .sort();
  const raw = () => new Map(names.map((n) => [n, readFileSync(join(dir, `${n}.js`), 'utf8')]));
  const e = esbuild();
  if (!e) return (lodashModulesValue = raw());
  let json: string;
  try {
    json = cached('lodash-modules', ['lodash-modules', packageVersion('lodash'), e.version], () => {
      const result = e.buildSync({
        entryPoints: names.map((n) => join(dir, `${n}.js`)),
        outdir: '/lodash-out',
        bundle: false,
        minify: true,
        format: 'cjs',
        target: 'es2020',
        legalComments: 'none',
        write: false,
        logLevel: 'silent',
      });
      const out: Record<string, string> = {};
      for (const f of result.outputFiles ?? []) {
        const m = /([A-Za-z0-9_]+)\.js$/.exec(f.path);
        if (m) out[m[1]!] = f.text;
      }
      if (Object.keys(out).length !== names.length) throw new Error('lodash modules: esbuild output is incomplete');
      return JSON.stringify(out);
    });
  } catch {
    return (lodashModulesValue = raw());
  }
  return (lodashModulesValue = new Map(Object.entries(JSON.parse(json) as Record<string, string>)));
}
