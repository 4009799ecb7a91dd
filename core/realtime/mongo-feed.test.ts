// The MongoDB realtime feed between two processes (two stores on one database, each with its own
// bus and feed): captures and shared events of one reach the other's subscribers, by change stream
// where the server opens one and by polling where it does not. Runs on MONGODB_URI's server, or on
// the emulator .ci/run installs; skipped, naming what is missing, otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName } from '../../test/helpers/mongo.js';
import { silentLogger } from '../logger.js';
import { supportsChangeStreams } from '../store/mongo/capabilities.js';
import type { Cols } from '../store/mongo/docs.js';
import { createMongoStore } from '../store/mongo/index.js';
import { sampleRequest, sampleToken } from '../store/store.contract.js';
import type { Store } from '../store/types.js';
import { createBus, type RealtimeEvent } from './bus.js';
import type { Feed } from './feed.js';
import { EVENTS_COLLECTION, mongoFeed } from './mongo-feed.js';

const mongo = await startTestMongo();
const NO_CHANGE_STREAMS = 'skip: needs change streams (the server has none)';

interface Process {
  store: Store;
  bus: ReturnType<typeof createBus>;
  feed: Feed;
}

const colsOf = (store: Store) => (store as Store & { c: Cols }).c;

describe.skipIf(!mongo)(mongo ? 'MongoDB realtime feed' : `MongoDB realtime feed: ${NO_MONGO}`, () => {
  const dbName = testDbName('capture_feed');
  const started: Process[] = [];
  let changeStreams = false;

  async function start(pollMs = 50): Promise<Process> {
    const store = await createMongoStore(mongo!.uri, { dbName });
    const bus = createBus();
    const feed = mongoFeed(colsOf(store).db, store, silentLogger, { pollMs });
    bus.setShare((e) => feed.share(e));
    await feed.start(bus);
    const p = { store, bus, feed };
    started.push(p);
    return p;
  }

  /** Resolves with the first event a subscriber of `tokenId` on `p` hears. */
  function next(p: Process, tokenId: string): Promise<RealtimeEvent> {
    return new Promise((resolve) => {
      const off = p.bus.subscribe(tokenId, (e) => {
        off();
        resolve(e);
      });
    });
  }

  beforeAll(async () => {
    const store = await createMongoStore(mongo!.uri, { dbName });
    changeStreams = await supportsChangeStreams(colsOf(store).requests);
    await store.close();
  });

  afterAll(async () => {
    for (const p of started) {
      await p.feed.stop();
      await p.store.close();
    }
    if (mongo) await discardStoreData(mongo.uri, dbName);
    await mongo?.stop();
  });

  it('uses change streams where the server opens them and polls where it does not', async () => {
    const p = await start();
    expect(p.feed.kind).toBe(changeStreams ? 'mongo-change-stream' : 'mongo-poll');
  });

  it("delivers a capture stored by one process to the other's subscribers, once", async () => {
    const [a, b] = [await start(), await start()];
    const token = sampleToken();
    await a.store.tokens.create(token);
    const heard: RealtimeEvent[] = [];
    b.bus.subscribe(token.uuid, (e) => heard.push(e));
    const arrived = next(b, token.uuid);
    const request = sampleRequest(token.uuid);
    await a.store.requests.insert(request, 100);
    expect(await arrived).toMatchObject({ type: 'request.created', tokenId: token.uuid, request: { uuid: request.uuid } });
    await new Promise((r) => setTimeout(r, 200));
    expect(heard).toHaveLength(1);
  });

  it("delivers a token's deletion published by one process to the other's subscribers", async () => {
    const [a, b] = [await start(), await start()];
    const token = sampleToken();
    await a.store.tokens.create(token);
    const arrived = next(b, token.uuid);
    a.bus.publish({ type: 'token.deleted', tokenId: token.uuid });
    expect(await arrived).toEqual({ type: 'token.deleted', tokenId: token.uuid });
  });

  it('prunes shared events older than ten minutes, whether or not the server runs TTL indexes', async () => {
    const store = await createMongoStore(mongo!.uri, { dbName });
    const events = colsOf(store).db.collection(EVENTS_COLLECTION);
    const old = await events.insertOne({ origin: 'gone', token_id: 't', type: 'token.deleted', data: {}, created_at: new Date(Date.now() - 11 * 60_000) });
    const fresh = await events.insertOne({ origin: 'here', token_id: 't', type: 'token.deleted', data: {}, created_at: new Date() });
    await store.close();
    const p = await start();
    const events2 = colsOf(p.store).db.collection(EVENTS_COLLECTION);
    await expect.poll(() => events2.countDocuments({ _id: old.insertedId }), { timeout: 5_000 }).toBe(0);
    expect(await events2.countDocuments({ _id: fresh.insertedId })).toBe(1);
  });

  it('delivers captures through change streams alone (no polling)', async (ctx) => {
    ctx.skip(!changeStreams, NO_CHANGE_STREAMS);
    const [a, b] = [await start(), await start(3_600_000)];
    const token = sampleToken();
    await a.store.tokens.create(token);
    const arrived = next(b, token.uuid);
    const request = sampleRequest(token.uuid);
    await a.store.requests.insert(request, 100);
    expect(await arrived).toMatchObject({ type: 'request.created', request: { uuid: request.uuid } });
  });
});
