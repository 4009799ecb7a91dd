// Runs the shared storage contract against the MongoDB adapter when MONGODB_URI points at a server
// (the hosted CI workflow in .github/workflows/ci.yml starts a `mongo:7` service for this). Every
// store the suite opens gets a fresh database, dropped afterwards. Without MONGODB_URI the run is
// reported as skipped (no MongoDB server can run on our development and CI machines).
import { MongoClient } from 'mongodb';
import { afterAll, describe, it } from 'vitest';
import type { Store } from '../types.js';
import { createMongoStore } from './index.js';

const uri = process.env.MONGODB_URI;

if (uri) {
  // Loaded only when it will run, so the skipped case depends on nothing but vitest.
  const { runStoreContract } = await import('../store.contract.js');

  describe('MongoDB store', () => {
    const dbNames: string[] = [];
    const stores: Store[] = [];

    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
      const client = new MongoClient(uri);
      try {
        await client.connect();
        for (const name of dbNames) await client.db(name).dropDatabase();
      } finally {
        await client.close();
      }
    });

    runStoreContract('mongo', async () => {
      const dbName = `capture_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
      dbNames.push(dbName);
      const store = await createMongoStore(uri, { dbName });
      stores.push(store);
      return store;
    });
  });
} else {
  describe.skipIf(!uri)('MongoDB contract run skipped: MONGODB_URI is unset', () => {
    it('runs the storage contract against MongoDB (set MONGODB_URI to enable)', () => {});
  });
}
