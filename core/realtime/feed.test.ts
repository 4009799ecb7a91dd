// The SQLite realtime feed between two processes (two stores on one file, each with its own bus and
// feed): a capture stored by one reaches the other's subscribers once, read from the request engine
// (captureFeed) in commit order, the captures from before the feed started left out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import { sampleRequest, sampleToken } from '../store/store.contract.js';
import { createBus, type RealtimeEvent } from './bus.js';
import { createFeed } from './feed.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-feed-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("delivers the captures one process stores to the other's subscribers, once each, in order", async () => {
  const file = path.join(dir, 'feed.sqlite');
  const a = createSqliteStore(file, { writer: 'in-thread' });
  const b = createSqliteStore(file, { writer: 'in-thread' });
  const token = sampleToken();
  await a.tokens.create(token);
  const before = sampleRequest(token.uuid, { body: Buffer.from('before') });
  await a.requests.insert(before, 100);
  const bus = createBus();
  const feed = await createFeed(b, silentLogger, { pollMs: 20 });
  expect(feed.kind).toBe('sqlite-poll');
  await feed.start(bus);
  try {
    const heard: RealtimeEvent[] = [];
    bus.subscribe(token.uuid, (e) => heard.push(e));
    const sent = [1, 2, 3].map((i) => sampleRequest(token.uuid, { body: Buffer.from(`capture ${i}`) }));
    for (const r of sent) await a.requests.insert(r, 100);
    await expect.poll(() => heard.length, { timeout: 5_000 }).toBe(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(heard.map((e) => (e.type === 'request.created' ? e.request.uuid : e.type))).toEqual(sent.map((r) => r.uuid));
  } finally {
    await feed.stop();
    await a.close();
    await b.close();
  }
});
