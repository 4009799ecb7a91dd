// Trying SQLite's write lock without waiting (no-wait.ts), while another connection holds it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isBusy, noWait } from './no-wait.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-no-wait-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('noWait', () => {
  it('fails at once with SQLITE_BUSY while another connection holds the lock, every attempt, and keeps busy_timeout outside', () => {
    const file = path.join(dir, 'a.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 2000');
    db.exec('CREATE TABLE t (x INTEGER)');
    const lock = noWait(db);
    expect(lock.busyTimeoutMs).toBe(2000);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const insert = db.transaction(() => db.prepare('INSERT INTO t VALUES (1)').run()).immediate;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      let error: unknown;
      try {
        lock.run(insert);
      } catch (e) {
        error = e;
      }
      expect(isBusy(error)).toBe(true);
      // busy_timeout would have slept 2 s.
      expect(performance.now() - t0).toBeLessThan(500);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(2000);
    }
    other.exec('COMMIT');
    other.close();
    expect(lock.run(() => (insert(), 'done'))).toBe('done');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(2000);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    db.close();
  });
});
