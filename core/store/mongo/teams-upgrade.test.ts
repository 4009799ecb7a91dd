// The MongoDB side of the upgrade to teams: users and tokens stored before teams (no team_id, no
// user_type_id) come back, once the store has opened, as one-person teams that own their tokens,
// and the team lists find them. Runs on MONGODB_URI's server or the emulator .ci/run installs;
// skipped, naming what is missing, otherwise.
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName } from '../../../test/helpers/mongo.js';
import { createMongoStore } from './index.js';

const mongo = await startTestMongo();

describe.skipIf(!mongo)(mongo ? 'MongoDB upgrade to teams' : `MongoDB upgrade to teams: ${NO_MONGO}`, () => {
  const dbName = testDbName('capture_teams');
  afterAll(async () => {
    await discardStoreData(mongo!.uri, dbName);
    await mongo!.stop();
  });

  it('makes each user from before a one-person team as its Administrator, and each token part of its owner’s team', async () => {
    const client = await MongoClient.connect(mongo!.uri);
    const db = client.db(dbName);
    const now = Date.now();
    await db.collection('users').insertMany([
      { _id: 41, id: 41, name: 'Old', email: 'old@example.test', premium: false, created_at: now, updated_at: now },
      { _id: 42, id: 42, name: 'Older', email: 'older@example.test', premium: true, created_at: now, updated_at: now },
    ] as never[]);
    const token = (uuid: string, user_id: number | null) => ({
      _id: uuid,
      user_id,
      alias: null,
      redirect: false,
      actions: false,
      cors: false,
      expiry: null,
      timeout: 0,
      listen: 0,
      premium: false,
      premium_expires_at: null,
      ip: '',
      user_agent: '',
      default_content: '',
      default_status: 200,
      default_content_type: 'text/plain',
      request_limit: 10,
      description: null,
      group_id: null,
      password_hash: null,
      created_at: now,
      updated_at: now,
      expires_at: null,
      request_count: 0,
      latest_request_id: null,
      latest_request_at: null,
      latest_sorting: null,
    });
    await db.collection('tokens').insertMany([token('t-41', 41), token('t-42', 42), token('t-anon', null)] as never[]);
    await client.close();

    const store = await createMongoStore(mongo!.uri, { dbName });
    try {
      expect(await store.users.get(41)).toMatchObject({ team_id: 41, user_type_id: 100, role_id: null, invite_hash: null });
      expect((await store.users.page(42, 1, 10)).items.map((u) => u.id)).toEqual([42]);
      expect((await store.tokens.get('t-41'))?.team_id).toBe(41);
      expect((await store.tokens.get('t-anon'))?.team_id).toBeNull();
      const list = await store.tokens.list(42, { page: 1, perPage: 10, orderBy: 'created_at', direction: 'asc' });
      expect(list.items.map((t) => t.uuid)).toEqual(['t-42']);
    } finally {
      await store.close();
    }
  });
});
