// The SQLite request engine (core/store/sqlite/requests/) owns its tables: no code outside it (the
// store's CRUD repositories, the realtime feed, any other module of the service) names one of them
// in a statement; it asks the engine. That its modules are
// entered only through its index.ts is the lint's import-boundaries rule
// (scripts/lint/import-boundaries.js).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENGINE = 'core/store/sqlite/requests';
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

/** The tables the engine owns (migrations.ts): only its own statements and the migrations name them. */
const ENGINE_TABLES = [
  'requests',
  'request_keys',
  'request_ids',
  'request_files',
  'request_text',
  'request_text_stale',
  'request_trimmed',
  'request_watermark',
  'search_keys',
  'search_tokens',
  'search_rows',
  'search_fields',
  'search_settings',
];
const NAMES_TABLE = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+(${ENGINE_TABLES.join('|')})\\b`, 'gi');
/** The store's SQLite code outside the engine that may name its tables: the schema's history. */
const SCHEMA_FILES = new Set(['core/store/sqlite/migrations.ts']);

/** Where the service's code lives (the measurement scripts and the benchmark's own servers aside). */
const SERVICE_DIRS = ['core', 'packages', 'plugins', 'cli'].filter((d) => fs.existsSync(path.join(ROOT, d)));
const isTest = (f: string) => /\.test\.ts$|\/test\//.test(f);

/** The engine tables a source's statements name. */
const engineTablesIn = (text: string): string[] => [...text.matchAll(NAMES_TABLE)].map((m) => m[1]!);

describe('the request engine boundary', () => {
  it('finds the engine tables a statement names, and they are in the schema', () => {
    expect(engineTablesIn("db.prepare('DELETE FROM requests WHERE seq IN (SELECT seq FROM request_keys WHERE token_id = ?)')")).toEqual(['requests', 'request_keys']);
    expect(engineTablesIn("db.prepare('SELECT * FROM tokens'); await requests.sync(uuid)")).toEqual([]);
    const schema = fs.readFileSync(path.join(ROOT, 'core/store/sqlite/schema.sql'), 'utf8');
    for (const t of ENGINE_TABLES) expect(schema, t).toMatch(new RegExp(`CREATE (VIRTUAL )?TABLE "?${t}"? `));
  });

  it('keeps the repositories and the rest of the SQLite store out of its tables', () => {
    const store = sources('core/store/sqlite').filter((f) => !f.startsWith(`${ENGINE}/`) && !SCHEMA_FILES.has(f) && !isTest(f));
    expect(store.some((f) => f.startsWith('core/store/sqlite/repos/'))).toBe(true);
    const named = store.flatMap((f) => engineTablesIn(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((t) => `${f} -> ${t}`));
    expect(named).toEqual([]);
  });

  it('keeps every other module of the service out of its tables: the realtime feed asks the engine', () => {
    const outside = SERVICE_DIRS.flatMap((d) => sources(d)).filter((f) => !f.startsWith(`${ENGINE}/`) && !SCHEMA_FILES.has(f) && !isTest(f));
    // The SQLite feed polls the captures of other processes (captureFeed), which it once read itself.
    expect(outside).toContain('core/realtime/feed.ts');
    const named = outside.flatMap((f) => engineTablesIn(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((t) => `${f} -> ${t}`));
    expect(named).toEqual([]);
  });
});
