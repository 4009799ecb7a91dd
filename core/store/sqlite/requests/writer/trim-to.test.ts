// A token's request_limit set far lower (trimTo): the store answers the update at once, the trim
// runs in steps on the event loop's writer (captures and timers go on between them), and the
// token's first read after it sees the new limit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import { createSqliteStore } from '../../index.js';
import { requestSeeder } from '../seed.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-trim-to-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('trims a token of 50,000 requests to 10 in steps that keep the event loop turning', async () => {
  const file = path.join(dir, 'big.sqlite');
  const n = 50_000;
  const seeding = createSqliteStore(file, { writer: 'in-thread' });
  const t = sampleToken({ request_limit: n });
  await seeding.tokens.create(t);
  const seed = requestSeeder(seeding.db);
  seeding.db.transaction(() => {
    for (let i = 0; i < n; i++) seed(sampleRequest(t.uuid, { body: Buffer.from(`order ${i}`) }));
  })();
  await seeding.close();
  const store = createSqliteStore(file, { writer: 'in-thread' });
  try {
    expect((await store.tokens.stats(t.uuid)).requests).toBe(n);

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
    const page = await store.requests.list(t.uuid, { sorting: 'newest', page: 1, perPage: 100 });
    const trimmed = performance.now() - t0;
    await captured;
    clearInterval(timer);

    expect(page.total).toBe(10);
    expect((await store.requests.list(t.uuid, { sorting: 'newest', page: 1, perPage: 100 })).items[0]!.body.toString()).toBe('during');
    expect(store.db.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(t.uuid)).toBeLessThanOrEqual(11);
    // The update itself trims nothing; the trim (tens of steps) never held the loop for long.
    expect(answered).toBeLessThan(trimmed / 4);
    expect(longest).toBeLessThan(Math.max(250, trimmed / 4));
  } finally {
    await store.close();
  }
}, 120_000);
