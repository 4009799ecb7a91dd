// The WAL bound under reads that never stop (wal-gate.ts, checkpointer.ts): while the WAL is over
// its bound, new reads wait for it to be cut (at most MAX_HOLD_MS), so back-to-back searches on
// the reader threads no longer keep it growing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../../query/index.js';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import { createSqliteStore } from '../../index.js';
import { gatedReads, walGate } from './wal-gate.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-wal-gate-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('wal gate', () => {
  it('lets reads start at once while open, holds them while the WAL is over, and never longer than its bound', async () => {
    const gate = walGate(100);
    const started: string[] = [];
    const reads = gatedReads({ list: async (x: string) => (started.push(x), x), close: async () => {} }, gate);
    expect(gate.wait()).toBeNull();
    expect(await reads.list('a')).toBe('a');
    gate.set(true);
    const b = reads.list('b');
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toEqual(['a']);
    gate.set(false);
    expect(await b).toBe('b');
    gate.set(true);
    const t0 = performance.now();
    expect(await reads.list('c')).toBe('c');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(95);
    gate.set(false);
    await reads.close();
  });

  it('keeps cutting the WAL while overlapping searches run back to back on the reader threads', async () => {
    const file = path.join(dir, 'gate.sqlite');
    const limit = 256 * 1024;
    const store = createSqliteStore(file, { walLimitBytes: limit });
    const walSize = () => fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0;
    const t = sampleToken();
    await store.tokens.create(t);
    const write = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => store.requests.insert(sampleRequest(t.uuid, { body: Buffer.alloc(2048, String(i % 10)) }), 10_000)));
    for (let i = 0; i < 10; i++) await write(200);
    // The checkpointer starts once the WAL passed the bound, and cuts it.
    const started = Date.now() + 5_000;
    while (walSize() > limit && Date.now() < started) await new Promise((r) => setTimeout(r, 20));
    expect(walSize()).toBeLessThanOrEqual(limit);
    // Two loops of searches that each read every row: at any moment one of them is reading.
    let searching = true;
    let searches = 0;
    const loop = async () => {
      while (searching) {
        await store.requests.list(t.uuid, { query: parseQuery('content:*7*'), sorting: 'newest', page: 1, perPage: 20, now: 0 });
        searches++;
      }
    };
    const loops = [loop(), loop()];
    let cuts = 0;
    let over = false;
    let peak = 0;
    const deadline = Date.now() + 4_000;
    while (Date.now() < deadline) {
      await write(20);
      await new Promise((r) => setTimeout(r, 10));
      const size = walSize();
      peak = Math.max(peak, size);
      if (size > limit) over = true;
      else if (over) (cuts++, (over = false));
    }
    searching = false;
    await Promise.all(loops);
    // Without holding new reads back, SQLite could not start the WAL over while they overlap.
    expect(cuts).toBeGreaterThanOrEqual(5);
    expect(peak).toBeLessThan(32 * limit);
    expect(searches).toBeGreaterThan(10);
    await store.close();
  });
});
