// Runs the shared storage contract against the MongoDB adapter when MONGODB_URI points at a server
// (.ci/run's MongoDB phase sets it to a wire-compatible emulator; the hosted CI workflow in
// .github/workflows/ci.yml starts a `mongo:7` service). Every store the suite opens gets a fresh
// database whose collections are removed afterwards. Without MONGODB_URI the run is reported as
// skipped.
import { afterAll, describe, it } from 'vitest';
import { discardStoreData, testDbName } from '../../../test/helpers/mongo.js';
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
      for (const name of dbNames) await discardStoreData(uri, name);
    });

    runStoreContract('mongo', async () => {
      const dbName = testDbName('capture_test');
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
