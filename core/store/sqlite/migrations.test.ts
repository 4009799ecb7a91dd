// Two processes started together on one new (or older) database file both run migrate(): the one
// that looks second must not apply a migration the other applied meanwhile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from './migrations.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function open(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

describe('migrate', () => {
  it('skips the migrations another connection applied after this one looked', () => {
    const file = path.join(dir, 'race.sqlite');
    const first = open(file);
    const second = open(file);
    // `first` reads which versions are applied (none), then `second` applies them all before
    // `first` goes on: the interleaving two processes starting at once can produce.
    const prepare = first.prepare.bind(first);
    let raced = false;
    first.prepare = ((sql: string) => {
      const stmt = prepare(sql);
      if (raced || !/SELECT version FROM schema_migrations/.test(sql)) return stmt;
      const all = stmt.all.bind(stmt);
      stmt.all = ((...args: unknown[]) => {
        const rows = all(...args);
        raced = true;
        migrate(second);
        return rows;
      }) as typeof stmt.all;
      return stmt;
    }) as typeof first.prepare;

    expect(() => migrate(first)).not.toThrow();
    expect(raced).toBe(true);
    const versions = first.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{ version: number }>;
    expect(new Set(versions.map((v) => v.version)).size).toBe(versions.length);
    first.close();
    second.close();
  });
});
