// Lowering a token's request_limit (PUT /token/{id}) holds at once: right after the PUT answers,
// lists, totals, searches and reads by UUID see only the newest `request_limit` requests, on both
// stores; the trimmed rows are then deleted in steps (SQLite) or chunks (MongoDB) while captures go
// on, and raising the limit again brings none of them back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleRequest } from '../../store/store.contract.js';
import { startTestServer } from '../../../test/helpers/server.js';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName } from '../../../test/helpers/mongo.js';
import type { Store } from '../../store/types.js';

const mongo = await startTestMongo();
afterAll(() => mongo?.stop());
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'limit-lowered-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `uri` with its database (the path) replaced by `db`. */
const withDatabase = (uri: string, db: string) => uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${db}`);

interface Case {
  env: () => Record<string, string>;
  /** The token's stored request rows (documents), whatever the reads show. */
  rows: (store: Store, tokenId: string) => Promise<number>;
  seeded: number;
  done?: () => Promise<void>;
}

const sqliteRows = async (store: Store, tokenId: string) =>
  (store as unknown as { db: { prepare(s: string): { pluck(): { get(t: string): unknown } } } }).db.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(tokenId) as number;

const mongoDb = testDbName('capture_limit_lowered');
const CASES: Array<[string, Case | null]> = [
  ['SQLite, in-thread writer', { env: () => ({}), rows: sqliteRows, seeded: 2_000 }],
  ['SQLite file, writer thread', { env: () => ({ DATA_DIR: fs.mkdtempSync(path.join(dir, 'w-')), SQLITE_WRITER: 'worker' }), rows: sqliteRows, seeded: 2_000 }],
  [
    mongo ? 'MongoDB' : `MongoDB: ${NO_MONGO}`,
    mongo && {
      env: () => ({ MONGODB_URI: withDatabase(mongo.uri, mongoDb) }),
      rows: async (_store, tokenId) => {
        const client = await MongoClient.connect(withDatabase(mongo.uri, mongoDb));
        try {
          return await client.db(mongoDb).collection('requests').countDocuments({ token_id: tokenId });
        } finally {
          await client.close();
        }
      },
      seeded: 300,
      done: () => discardStoreData(mongo.uri, mongoDb),
    },
  ],
];

describe.each(CASES)('lowering request_limit: %s', (_name, c) => {
  it.skipIf(!c)(
    'trims at once for every read, deletes the rows after, keeps capturing, never brings them back',
    async () => {
      const s = await startTestServer(c!.env());
      try {
        const { key } = await s.user(true);
        const t = await s.token({ request_limit: c!.seeded }, key);
        const store = s.services.store;
        const uuids: string[] = [];
        for (let i = 0; i < c!.seeded; i += 200) {
          const batch = Array.from({ length: Math.min(200, c!.seeded - i) }, (_, j) => sampleRequest(t.uuid, { method: (i + j) % 2 ? 'PUT' : 'GET', body: Buffer.from(`order ${i + j}`) }));
          await Promise.all(batch.map((r) => store.requests.insert(r, c!.seeded)));
          uuids.push(...batch.map((r) => r.uuid));
        }
        const list = (query = '') => s.call('GET', `/token/${t.uuid}/requests?per_page=100&sorting=oldest${query && `&query=${encodeURIComponent(query)}`}`, { key });
        expect((await list()).data.total).toBe(c!.seeded);

        const t0 = performance.now();
        const put = await s.call('PUT', `/token/${t.uuid}`, { key, json: { request_limit: 10 } });
        expect(put.status).toBe(200);
        expect(put.data.request_limit).toBe(10);
        expect(performance.now() - t0).toBeLessThan(5_000);
        const kept = uuids.slice(-10);
        const page = await list();
        expect([page.data.total, page.data.data.length]).toEqual([10, 10]);
        expect(page.data.data.map((r: { uuid: string }) => r.uuid)).toEqual(kept);
        expect((await list('method:PUT')).data.total).toBe(5);
        expect((await list('order')).data.total).toBe(10);
        expect((await s.call('GET', `/token/${t.uuid}/request/${uuids[0]}`, { key })).status).toBe(404);
        expect((await s.call('GET', `/token/${t.uuid}/request/${kept[0]}`, { key })).status).toBe(200);

        // Captures while the trimmed rows go (in steps on SQLite: they may be gone already) are kept, trimming the oldest.
        const captures = await Promise.all([1, 2, 3].map((n) => s.call('POST', `/${t.uuid}?during=${n}`, { body: 'during the trim' })));
        expect(captures.map((r) => r.status)).toEqual([200, 200, 200]);
        const after = await list();
        expect(after.data.total).toBe(10);
        expect(
          after.data.data
            .slice(-3)
            .map((r: { query: { during: string } }) => r.query.during)
            .sort(),
        ).toEqual(['1', '2', '3']);

        // The rows themselves go too (those of the 3 trimmed by the captures may wait for the usual sweep).
        for (let i = 0; i < 100 && (await c!.rows(store, t.uuid)) > 13; i++) await new Promise((r) => setTimeout(r, 50));
        expect(await c!.rows(store, t.uuid)).toBeLessThanOrEqual(13);

        // Raised again: nothing comes back.
        expect((await s.call('PUT', `/token/${t.uuid}`, { key, json: { request_limit: c!.seeded } })).status).toBe(200);
        expect((await list()).data.total).toBe(10);
        expect((await s.call('GET', `/token/${t.uuid}/request/${uuids[0]}`, { key })).status).toBe(404);
      } finally {
        await s.close();
        await c!.done?.();
      }
    },
    60_000,
  );
});
