// The SQLite request engine (core/store/sqlite/requests/) is used through one module, its index.ts:
// the repositories, the store and the rest of the code never reach into its writer, readers or
// search planner, so those can change without touching them.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENGINE = 'core/store/sqlite/requests';
const ENTRY = `${ENGINE}/index.ts`;
/** Measurement scripts that time the engine's parts one by one (docs/storage.md). */
const ALLOWED = new Set(['scripts/measure-catchup.ts', 'scripts/measure-write-cost.ts']);
const SKIP = new Set(['node_modules', 'dist', '.git']);

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) sources(rel, out);
    else if (/\.(ts|mts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The repository paths a file imports by relative specifier (`.js` read as its `.ts` source). */
function relativeImports(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)).replace(/\.js$/, '.ts'),
  );
}

describe('the request engine boundary', () => {
  it('finds the imports of a file', () => {
    expect(relativeImports('core/store/sqlite/index.ts')).toContain(ENTRY);
  });

  it('is entered only through its index.ts', () => {
    const outside = ['core', 'scripts', 'test', 'bench', 'cli', 'plugins', 'packages'].flatMap((d) => (fs.existsSync(path.join(ROOT, d)) ? sources(d) : []))
      .filter((f) => !f.startsWith(`${ENGINE}/`) && !ALLOWED.has(f));
    const crossings = outside.flatMap((f) => relativeImports(f).filter((i) => i.startsWith(`${ENGINE}/`) && i !== ENTRY).map((i) => `${f} -> ${i}`));
    expect(crossings).toEqual([]);
  });
});
