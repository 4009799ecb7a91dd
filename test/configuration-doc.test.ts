// docs/configuration.md lists every setting core/config.ts reads, once, one short table row each,
// and nothing that is not a setting; the README's table of the most used settings names only real
// ones, with the same defaults.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../core/config.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const SETTINGS = Object.keys(ConfigSchema.shape).sort();

interface Row {
  name: string;
  fallback: string;
  line: string;
}

/** The rows of a Markdown table whose first cell is one `VARIABLE`. */
function settingRows(markdown: string): Row[] {
  return markdown
    .split('\n')
    .map((line) => ({ line, cells: line.split(/(?<!\\)\|/).map((c) => c.trim()) }))
    .filter(({ cells }) => /^`[A-Z][A-Z0-9_]*`$/.test(cells[1] ?? ''))
    .map(({ line, cells }) => ({ name: cells[1]!.slice(1, -1), fallback: cells[2]!, line }));
}

describe('docs/configuration.md', () => {
  const rows = settingRows(fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8'));

  it('has one row for every setting of core/config.ts, and no other', () => {
    const names = rows.map((r) => r.name);
    expect(
      names.filter((n, i) => names.indexOf(n) !== i),
      'listed twice',
    ).toEqual([]);
    expect([...names].sort()).toEqual(SETTINGS);
  });

  it('says each setting in one short line (details belong on the page it links to)', () => {
    const long = rows.filter((r) => r.line.length > 220).map((r) => r.name);
    expect(long).toEqual([]);
  });

  it('gives the defaults core/config.ts applies', () => {
    const defaults = ConfigSchema.parse({});
    for (const row of rows) {
      const value = (defaults as Record<string, unknown>)[row.name];
      if (typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value)) {
        expect(row.fallback, row.name).toBe(`\`${String(value)}\``);
      }
    }
  });
});

describe("README.md's table of the most used settings", () => {
  const readme = settingRows(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const full = new Map(settingRows(fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8')).map((r) => [r.name, r]));

  it('names real settings, with the defaults of docs/configuration.md', () => {
    expect(readme.length).toBeGreaterThan(5);
    for (const row of readme) {
      expect(SETTINGS, row.name).toContain(row.name);
      expect(row.fallback, row.name).toBe(full.get(row.name)!.fallback);
    }
  });
});
