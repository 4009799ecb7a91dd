// The WAL under steady commits: checkpointed off the main thread, started over in the same file,
// kept within its bound. These wait on the checkpointer thread keeping pace with the commits, so
// they run in the slow tier: the unit and integration tiers run two files at once, whose load held
// the checkpointer back past the bound.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleRequest, sampleToken } from '../store.contract.js';
import { createSqliteStore } from './index.js';
import { startCheckpointer } from './checkpointer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-wal-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('sqlite file store', () => {
  it('checkpoints the WAL off the main thread and keeps every commit across reopening', async () => {
    const file = path.join(dir, 'wal.sqlite');
    const store = createSqliteStore(file);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const t = sampleToken();
    await store.tokens.create(t);
    await Promise.all(Array.from({ length: 500 }, (_, i) => store.requests.insert(sampleRequest(t.uuid, { body: Buffer.alloc(10_000, String(i)) }), 10_000)));
    // Past CHECKPOINTER_START_BYTES of WAL (5 MB written) the worker starts and copies the WAL into the database within its interval.
    await new Promise((r) => setTimeout(r, 1700));
    const walFrames = store.db.pragma('wal_checkpoint(PASSIVE)', { simple: false }) as Array<{ log: number; checkpointed: number }>;
    expect(walFrames[0]!.checkpointed).toBe(walFrames[0]!.log);
    await store.close();
    expect(fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0).toBe(0);
    const again = createSqliteStore(file);
    expect((await again.tokens.stats(t.uuid)).requests).toBe(500);
    await again.close();
  });

  it('starts the WAL over in the same file under steady commits, rather than cutting it and growing it again', async () => {
    const file = path.join(dir, 'wal-restart.sqlite');
    const limit = 2 * 1024 * 1024;
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`journal_size_limit = ${limit}`);
    db.exec('CREATE TABLE t (data BLOB)');
    const insert = db.prepare('INSERT INTO t (data) VALUES (?)');
    // A PASSIVE checkpoint every 100 ms, the worker started past 256 KB of WAL.
    const checkpointer = startCheckpointer(db, file, 100, undefined, limit, 256 * 1024);
    const walSize = () => fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0;
    // A small commit every ms or so for 4 s (a page of WAL each, several times the bound in all):
    // commits come in while each checkpoint runs, so SQLite never finds the WAL copied back whole.
    const sizes: number[] = [];
    const started = Date.now();
    let commits = 0;
    while (Date.now() - started < 4000) {
      insert.run(Buffer.alloc(1024, commits++ % 256));
      await new Promise((r) => setTimeout(r, 1));
      if (Date.now() - started > 1000) sizes.push(walSize());
    }
    await checkpointer.stop();
    // Never cut to nothing, never past the bound: started over, at the start of the same file.
    expect(commits * 4096).toBeGreaterThan(3 * limit);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(limit);
    db.close();
  });

  for (const writer of ['in-thread', 'worker'] as const) {
    it(`keeps the WAL within its bound, also while a reader holds an old snapshot (${writer} writer)`, async () => {
      const file = path.join(dir, `wal-bound-${writer}.sqlite`);
      const limit = 256 * 1024;
      const store = createSqliteStore(file, { writer, walLimitBytes: limit });
      const walSize = () => fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0;
      const t = sampleToken();
      await store.tokens.create(t);
      const write = (n: number) => Promise.all(Array.from({ length: n }, () => store.requests.insert(sampleRequest(t.uuid, { body: Buffer.alloc(8 * 1024, 'x') }), 100_000)));
      // A reader in an open transaction keeps SQLite from starting the WAL over: it grows.
      const reader = new Database(file);
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM requests').get();
      await write(300);
      expect(walSize()).toBeGreaterThan(2 * limit);
      reader.exec('COMMIT');
      reader.close();
      // The checkpointer (every 500 ms) copies the frames back and cuts the file to the bound.
      const deadline = Date.now() + 10_000;
      while (walSize() > limit && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(walSize()).toBeLessThanOrEqual(limit);
      await write(100);
      expect((await store.tokens.stats(t.uuid)).requests).toBe(400);
      await store.close();
    });
  }
});
