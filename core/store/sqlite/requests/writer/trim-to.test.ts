// A token's request_limit set far lower (trimTo): the store answers the update at once, the trim
// that takes the trimmed requests out of the reads runs in steps on the event loop's writer
// (captures and timers go on between them), the token's first read after it sees the new limit
// soon after, and the sweep deletes the trimmed rows in steps of its own after that.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import { parseQuery } from '../../../query/index.js';
import { createSqliteStore } from '../../index.js';
import { requestSeeder } from '../seed.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-trim-to-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it.each(['in-thread', 'worker'] as const)(
  '%s writer: trims a token of 50,000 requests to 10 for reads within a second, then sweeps its rows in steps',
  async (writer) => {
    const file = path.join(dir, `big-${writer}.sqlite`);
    const n = 50_000;
    const seeding = createSqliteStore(file, { writer: 'in-thread' });
    const t = sampleToken({ request_limit: n });
    await seeding.tokens.create(t);
    const seed = requestSeeder(seeding.db);
    seeding.db.transaction(() => {
      for (let i = 0; i < n; i++) seed(sampleRequest(t.uuid, { body: Buffer.from(`order ${i}`) }));
    })();
    await seeding.close();
    const store = createSqliteStore(file, { writer });
    try {
      expect((await store.tokens.stats(t.uuid)).requests).toBe(n);
      // Read once before (the reader threads start with the first read).
      expect((await store.requests.list(t.uuid, { sorting: 'newest', page: 1, perPage: 100 })).total).toBe(n);

      // A write before the clock starts: the first write on the event loop's connection after the
      // store opened can wait for a lock (78-88 ms, the busy handler's steps) that the store's
      // threads hold while they start; what is timed below is the update's own work.
      store.db.exec('BEGIN IMMEDIATE; COMMIT');
      // The loop's longest gap while the trim runs, sampled by a 1 ms timer.
      let last = performance.now();
      let longest = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 1);
      const t0 = performance.now();
      await store.tokens.update(t.uuid, { request_limit: 10 });
      const answered = performance.now() - t0;
      const captured = store.requests.insert(sampleRequest(t.uuid, { body: Buffer.from('during') }), 10);
      const rowsOf = store.db.prepare<[string], number>('SELECT count(*) FROM requests WHERE token_id = ?').pluck();
      // The rows left when the reads are let go (latest() reads on this thread as soon as its wait
      // ends): the list's own read, on a reader thread, can take longer under load than the sweep.
      const released = store.requests.latest(t.uuid).then(() => rowsOf.get(t.uuid)!);
      const page = await store.requests.list(t.uuid, { sorting: 'newest', page: 1, perPage: 100 });
      const trimmed = performance.now() - t0;
      const rowsAtFirstRead = await released;
      // Acknowledged, so the searches' reads wait for it (the writer thread's reads wait for what was acknowledged).
      await captured;
      // Searched (the token was search-indexed at 50,000), from the full-text index: dense, and
      // driven by the rows (a date window), while the purge and the sweep run: 'during' is not among them.
      const searched = await store.requests.list(t.uuid, { query: parseQuery('order'), sorting: 'newest', page: 1, perPage: 100 });
      const searchedRows = await store.requests.list(t.uuid, { query: parseQuery('order'), dateFrom: 0, sorting: 'newest', page: 1, perPage: 100 });
      // The sweep: the trimmed rows go in steps, without a read waiting for them.
      const deadline = Date.now() + 90_000;
      while (rowsOf.get(t.uuid)! > 11 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const swept = performance.now() - t0;
      clearInterval(timer);
      console.log(
        `${writer}: trimTo 50,000 -> 10: update ${answered.toFixed(0)} ms, first list ${trimmed.toFixed(0)} ms (${rowsAtFirstRead} rows left then), swept by ${swept.toFixed(0)} ms, longest loop gap ${longest.toFixed(0)} ms`,
      );

      expect(page.total).toBe(10);
      expect(page.items).toHaveLength(10);
      const after = await store.requests.list(t.uuid, { sorting: 'newest', page: 1, perPage: 100 });
      expect(after.total).toBe(10);
      expect(after.items[0]!.body.toString()).toBe('during');
      expect(after.items.at(-1)!.body.toString()).toBe(`order ${n - 9}`);
      expect((await store.tokens.stats(t.uuid)).requests).toBe(10);
      for (const s of [searched, searchedRows]) {
        expect(s.total).toBe(9);
        expect(s.items.map((r) => r.body.toString())).toEqual(Array.from({ length: 9 }, (_, i) => `order ${n - 1 - i}`));
      }
      // The first read did not wait for the rows' deletion (the sweep runs on the loop meanwhile).
      expect(rowsAtFirstRead).toBeGreaterThan(11);
      expect(rowsOf.get(t.uuid)).toBeLessThanOrEqual(11);
      expect(store.db.prepare('SELECT count(*) FROM request_trimmed').pluck().get()).toBe(0);
      // On this loaded machine the first list came in 0.2-1 s; the bound leaves room for load.
      expect(trimmed).toBeLessThan(3_000);
      // The update itself trims nothing; neither the trim's nor the sweep's steps held the loop for long.
      expect(answered).toBeLessThan(trimmed / 4);
      expect(longest).toBeLessThan(Math.max(250, trimmed / 4));
    } finally {
      await store.close();
    }
  },
  120_000,
);
