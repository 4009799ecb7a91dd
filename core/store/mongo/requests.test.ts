// The MongoDB request repository at sizes the shared contract does not reach: the bounded count
// (totalCapped), deep pages, chunked deletes (by filter and with the token) and trimming many at
// once or under concurrent captures. Runs on MONGODB_URI's server, else on the emulator .ci/run
// installs (JONGODB_BIN); skipped with a message naming both when there is neither.
import { afterAll, describe, expect, it } from 'vitest';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName } from '../../../test/helpers/mongo.js';
import { parseQuery } from '../query/index.js';
import { COUNT_BOUND } from '../query/limits.js';
import { sampleRequest, sampleToken } from '../store.contract.js';
import type { RequestRecord, Store } from '../types.js';
import { DELETE_CHUNK } from './chunks.js';
import { createMongoStore } from './index.js';

const mongo = await startTestMongo();

/** Requests written through the bulk path (as a migration writes them): no trimming per request. */
async function seed(store: Store, records: RequestRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += 4_000) {
    await store.transfer.write(
      'requests',
      records.slice(i, i + 4_000).map((request) => ({ request, files: [] })),
    );
  }
}

/** Bodies of every request of the token, oldest first, read in pages. */
async function bodies(store: Store, tokenId: string): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const { items } = await store.requests.list(tokenId, { page, perPage: 1000, sorting: 'oldest' });
    out.push(...items.map((r) => r.body.toString()));
    if (items.length < 1000) return out;
  }
}

describe.skipIf(!mongo)(mongo ? 'MongoDB requests at size' : NO_MONGO, () => {
  // A store (database) per test: the emulator's writes slow down with the size of their collection.
  const opened: Array<{ store: Store; dbName: string }> = [];
  async function openStore(): Promise<Store> {
    const dbName = testDbName('capture_requests');
    const store = await createMongoStore(mongo!.uri, { dbName });
    opened.push({ store, dbName });
    return store;
  }

  afterAll(async () => {
    for (const { store, dbName } of opened) {
      await store.close();
      await discardStoreData(mongo!.uri, dbName).catch(() => undefined);
    }
    await mongo?.stop();
  });

  it('counts filtered lists up to COUNT_BOUND, then says totalCapped; unfiltered and small counts stay exact; deep pages are right', async () => {
    const store = await openStore();
    const t = sampleToken({ request_limit: 20_000 });
    await store.tokens.create(t);
    const base = Date.now() - 1_000_000;
    const n = COUNT_BOUND + 2;
    // The last request is the only GET; created_at steps by one millisecond.
    const records = Array.from({ length: n }, (_, i) => sampleRequest(t.uuid, { body: Buffer.from(`b${i}`), method: i === n - 1 ? 'GET' : 'POST', created_at: base + i }));
    await seed(store, records);

    const all = await store.requests.list(t.uuid, { page: 1, perPage: 1, sorting: 'newest' });
    expect(all).toMatchObject({ total: n });
    expect(all.totalCapped).toBeUndefined();

    const posts = await store.requests.list(t.uuid, { page: 1, perPage: 2, sorting: 'oldest', query: parseQuery('method:POST') });
    expect(posts).toMatchObject({ total: COUNT_BOUND, totalCapped: true });
    expect(posts.items.map((r) => r.body.toString())).toEqual(['b0', 'b1']);
    const notGet = await store.requests.list(t.uuid, { page: 1, perPage: 1, sorting: 'oldest', query: parseQuery('NOT method:GET') });
    expect(notGet).toMatchObject({ total: COUNT_BOUND, totalCapped: true });

    const gets = await store.requests.list(t.uuid, { page: 1, perPage: 10, sorting: 'oldest', query: parseQuery('method:GET') });
    expect(gets.total).toBe(1);
    expect(gets.totalCapped).toBeUndefined();
    // Exactly the bound matches: exact, not capped.
    const bound = await store.requests.list(t.uuid, { page: 1, perPage: 1, sorting: 'oldest', dateFrom: base, dateTo: base + COUNT_BOUND - 1 });
    expect(bound.total).toBe(COUNT_BOUND);
    expect(bound.totalCapped).toBeUndefined();

    // Deep pages (ids first, then the documents) in both orders, with and without a filter.
    const newest = await store.requests.list(t.uuid, { page: 180, perPage: 50, sorting: 'newest' });
    expect(newest.items.map((r) => r.body.toString())).toEqual(Array.from({ length: 50 }, (_, i) => `b${n - 1 - 179 * 50 - i}`));
    const oldest = await store.requests.list(t.uuid, { page: 200, perPage: 50, sorting: 'oldest', query: parseQuery('method:POST') });
    expect(oldest.items.map((r) => r.body.toString())).toEqual(Array.from({ length: 50 }, (_, i) => `b${199 * 50 + i}`));
    const past = await store.requests.list(t.uuid, { page: 1000, perPage: 50, sorting: 'newest' });
    expect(past).toMatchObject({ items: [], total: n });
  }, 180_000);

  it('deletes by filter in chunks: exactly the matches, across chunk boundaries and equal sorting values; then the token with the rest', async () => {
    const store = await openStore();
    const t = sampleToken();
    await store.tokens.create(t);
    const n = DELETE_CHUNK * 2 + 500;
    // Seven requests per sorting value, so chunks end in the middle of equal values; every other one is a PUT.
    const start = 1_800_000_000_000_000;
    const records = Array.from({ length: n }, (_, i) => sampleRequest(t.uuid, { body: Buffer.from(`b${i}`), method: i % 2 === 0 ? 'PUT' : 'POST', sorting: start + Math.floor(i / 7) }));
    await seed(store, records);
    const puts = records.filter((r) => r.method === 'PUT');
    expect(puts.length).toBeGreaterThan(DELETE_CHUNK);
    // A file on a request that stays and one on a request that goes.
    const keptWithFile = sampleRequest(t.uuid, { method: 'POST', body: Buffer.from('kept'), sorting: start + n, files: [{ id: 'f1', name: 'a', filename: 'a.txt', size: 1, content_type: 'text/plain' }] });
    const goneWithFile = sampleRequest(t.uuid, { method: 'PUT', body: Buffer.from('gone'), sorting: start + n + 1, files: [{ id: 'f2', name: 'b', filename: 'b.txt', size: 1, content_type: 'text/plain' }] });
    await store.requests.insert(keptWithFile, 10_000, new Map([['f1', Buffer.from('1')]]));
    await store.requests.insert(goneWithFile, 10_000, new Map([['f2', Buffer.from('2')]]));

    expect(await store.requests.deleteMany(t.uuid, { query: parseQuery('method:PUT') })).toBe(puts.length + 1);
    const left = records.filter((r) => r.method !== 'PUT').map((r) => r.body.toString());
    expect(await bodies(store, t.uuid)).toEqual([...left, 'kept']);
    expect(await store.tokens.stats(t.uuid)).toMatchObject({ requests: left.length + 1, latest_request_id: keptWithFile.uuid });
    expect(await store.requests.getFile(t.uuid, goneWithFile.uuid, 'f2')).toBeNull();
    expect(await store.requests.getFile(t.uuid, keptWithFile.uuid, 'f1')).toEqual(Buffer.from('1'));
    expect(await store.requests.deleteMany(t.uuid, { query: parseQuery('method:PUT') })).toBe(0);

    expect(await store.tokens.delete(t.uuid)).toBe(true);
    expect(await store.requests.list(t.uuid, { page: 1, perPage: 10, sorting: 'oldest' })).toMatchObject({ items: [], total: 0 });
    expect(await store.requests.getFile(t.uuid, keptWithFile.uuid, 'f1')).toBeNull();
  }, 180_000);

  // 5,000 rather than a million: the emulator's writes slow down with the collection's size (its
  // 20,000 took minutes on a loaded machine); the contract keeps 12,000 at a raised limit.
  it('trims exactly at the limit, thousands at once when the limit is lowered, and concurrent captures to exactly the limit', async () => {
    const store = await openStore();
    const limit = 5_000;
    const t = sampleToken({ request_limit: limit });
    await store.tokens.create(t);
    const records = Array.from({ length: limit }, (_, i) => sampleRequest(t.uuid, { body: Buffer.from(`b${i}`) }));
    await seed(store, records);
    const past = [0, 1].map((i) => sampleRequest(t.uuid, { body: Buffer.from(`new${i}`) }));
    for (const r of past) await store.requests.insert(r, limit);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(limit);
    const first = await store.requests.list(t.uuid, { page: 1, perPage: 2, sorting: 'oldest' });
    expect(first).toMatchObject({ total: limit });
    expect(first.items.map((r) => r.body.toString())).toEqual(['b2', 'b3']);

    // The operator lowers the limit: the next capture trims 3,501 (several chunks) in one go.
    const lowered = 1_500;
    const next = sampleRequest(t.uuid, { body: Buffer.from('next') });
    await store.requests.insert(next, lowered);
    const kept = await bodies(store, t.uuid);
    expect(kept).toEqual([...records.slice(limit - lowered + 3).map((r) => r.body.toString()), 'new0', 'new1', 'next']);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(lowered);

    // Concurrent captures at the limit: each claims its own excess, none trims more.
    const burst = Array.from({ length: 20 }, (_, i) => sampleRequest(t.uuid, { body: Buffer.from(`c${i}`) }));
    await Promise.all(burst.map((r) => store.requests.insert(r, lowered)));
    const after = await bodies(store, t.uuid);
    expect(after).toHaveLength(lowered);
    expect(after.slice(-burst.length)).toEqual(burst.map((r) => r.body.toString()));
    expect(after[0]).toBe(kept[burst.length]);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(lowered);
    expect((await store.requests.latest(t.uuid))?.uuid).toBe(burst.at(-1)!.uuid);
  }, 240_000);

  it("lowering request_limit deletes the trimmed requests before the update answers, their files with them, and keeps the kept ones' files", async () => {
    const store = await openStore();
    const t = sampleToken({ request_limit: 3_000 });
    await store.tokens.create(t);
    const file = { id: 'f1', name: 'upload', filename: 'a.bin', size: 1, content_type: 'application/octet-stream' };
    // 2,500 seeded, then two with a file around one without: the oldest with a file is trimmed.
    await seed(
      store,
      Array.from({ length: 2_500 }, (_, i) => sampleRequest(t.uuid, { body: Buffer.from(`b${i}`) })),
    );
    const [trimmed, plain, kept] = ['trimmed', 'plain', 'kept'].map((b) => sampleRequest(t.uuid, { body: Buffer.from(b), files: b === 'plain' ? [] : [file] }));
    for (const r of [trimmed!, plain!, kept!]) await store.requests.insert(r, 3_000, r.files.length ? new Map([['f1', Buffer.from(r.body)]]) : undefined);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(2_503);

    const updated = await store.tokens.update(t.uuid, { request_limit: 2 });
    expect(updated?.request_limit).toBe(2);
    // Right after the update: only the newest 2, counted, their files there, the trimmed one's gone.
    expect(await bodies(store, t.uuid)).toEqual(['plain', 'kept']);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(2);
    expect(await store.requests.getFile(t.uuid, kept!.uuid, 'f1')).toEqual(Buffer.from('kept'));
    expect(await store.requests.getFile(t.uuid, trimmed!.uuid, 'f1')).toBeNull();
    expect(await store.requests.get(t.uuid, trimmed!.uuid)).toBeNull();

    // Captures after it trim one at a time, exactly to the limit.
    for (const b of ['next0', 'next1', 'next2']) await store.requests.insert(sampleRequest(t.uuid, { body: Buffer.from(b) }), 2);
    expect(await bodies(store, t.uuid)).toEqual(['next1', 'next2']);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(2);
    expect(await store.requests.getFile(t.uuid, kept!.uuid, 'f1')).toBeNull();
  }, 240_000);
});
