// The replay walk on a real SQLite store: every matching request exactly once, in order, across
// pages and ties of the sorting key, up to the limit; the summary counts; the stored output replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { sampleRequest, sampleToken } from '../store/store.contract.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { ActionsHook } from '../capture/pipeline.js';
import type { RequestRecord, Store, TokenRecord } from '../store/types.js';
import { ReplayService } from './service.js';

let store: Store;
let token: TokenRecord;
const records: RequestRecord[] = [];

beforeAll(async () => {
  store = await createSqliteStore(':memory:');
  token = sampleToken({ actions: true });
  await store.tokens.create(token);
  // 250 requests; every fifth shares its sorting key with the one before (a tie, kept in insertion order).
  let key = 1_800_000_000_000_000;
  for (let i = 0; i < 250; i++) {
    if (i % 5 !== 1) key += 10;
    const r = sampleRequest(token.uuid, { sorting: key, method: i % 3 === 0 ? 'PUT' : 'POST', type: i === 7 ? 'email' : 'web', custom_action_output: ['old'] });
    records.push(r);
    await store.requests.insert(r, 100_000);
  }
});
afterAll(async () => {
  await store?.close();
});

function service(actions: ActionsHook | null, seen: string[]) {
  return new ReplayService({
    store,
    clock: { now: () => Date.now() },
    logger: silentLogger,
    actions: () => actions,
    forward: async (record) => {
      seen.push(record.uuid);
      return { status: record.method === 'PUT' ? 503 : 200 };
    },
    isFatal: () => false,
  });
}

describe('replay service', () => {
  it('runs the actions once on every request, oldest first in order, replacing their stored output', async () => {
    const seen: string[] = [];
    const hook: ActionsHook = async (_t, record) => {
      seen.push(record.uuid);
      return { response: null, dontSave: false, output: [`new ${record.uuid}`], errors: record.method === 'PUT' ? [{ action: 'a', message: 'bad' }] : [] };
    };
    const replays = service(hook, seen);
    const r = await replays.create(token, { mode: 'actions', sorting: 'oldest', ordered: true, limit: 100_000 });
    expect(r.total).toBe(250);
    await replays.run(token.uuid, r.id);
    expect(seen).toEqual(records.map((x) => x.uuid));
    const end = await store.replays.get(token.uuid, r.id);
    const puts = records.filter((x) => x.method === 'PUT').length;
    expect(end).toMatchObject({ status: 'done', processed: 250, ran: 250 - puts, failed: puts, skipped: 0 });
    expect(end!.log).toHaveLength(Math.min(puts, 100));
    expect((await store.requests.get(token.uuid, records[3]!.uuid))!.custom_action_output).toEqual([`new ${records[3]!.uuid}`]);
    // Run again: a replay no longer queued is left alone.
    await replays.run(token.uuid, r.id);
    expect(seen).toHaveLength(250);
  });

  it('leaves the stored output as it was when the chain turns out empty (skipped)', async () => {
    const replays = service(async () => null, []);
    const r = await replays.create(token, { mode: 'actions', query: 'url:"*nothing-matches*"', sorting: 'oldest', ordered: true, limit: 5 });
    expect(r.total).toBe(0);
    const all = await replays.create(token, { mode: 'actions', sorting: 'newest', ordered: true, limit: 2 });
    const before = await store.requests.get(token.uuid, records[249]!.uuid);
    await replays.run(token.uuid, all.id);
    expect(await store.replays.get(token.uuid, all.id)).toMatchObject({ status: 'done', processed: 2, skipped: 2, ran: 0 });
    expect((await store.replays.get(token.uuid, all.id))!.log[0]).toMatchObject({ outcome: 'skipped', message: 'The token has no actions' });
    expect(await store.requests.get(token.uuid, records[249]!.uuid)).toEqual(before);
    await replays.run(token.uuid, r.id);
    expect(await store.replays.get(token.uuid, r.id)).toMatchObject({ status: 'done', processed: 0 });
  });

  it('walks newest first with a query and a limit, a few at once; forwards skip non-HTTP requests', async () => {
    const seen: string[] = [];
    const replays = service(null, seen);
    const r = await replays.create(token, { mode: 'forward', url: 'http://127.0.0.1:9/', query: 'method:POST', sorting: 'newest', ordered: false, limit: 120 });
    const posts = records
      .filter((x) => x.method === 'POST')
      .reverse()
      .slice(0, 120);
    expect(r.total).toBe(120);
    await replays.run(token.uuid, r.id);
    const email = posts.filter((x) => x.type === 'email').length;
    expect([...seen].sort()).toEqual(
      posts
        .filter((x) => x.type === 'web')
        .map((x) => x.uuid)
        .sort(),
    );
    expect(await store.replays.get(token.uuid, r.id)).toMatchObject({ status: 'done', processed: 120, ran: 120 - email, skipped: email, failed: 0 });
  });

  it('stops a replay cancelled before it ran, and one that runs when asked', async () => {
    const seen: string[] = [];
    const replays = service(null, seen);
    const queued = await replays.create(token, { mode: 'forward', url: 'http://127.0.0.1:9/', sorting: 'oldest', ordered: true, limit: 100 });
    expect((await replays.cancel(token, queued.id))!.status).toBe('cancelled');
    await replays.run(token.uuid, queued.id);
    expect(seen).toEqual([]);

    let release!: () => void;
    const gate = new Promise<void>((done) => (release = done));
    const slow = new ReplayService({
      store,
      clock: { now: () => Date.now() },
      logger: silentLogger,
      actions: () => null,
      isFatal: () => false,
      forward: async (record) => {
        seen.push(record.uuid);
        if (seen.length === 3) await gate;
        return { status: 200 };
      },
    });
    const running = await slow.create(token, { mode: 'forward', url: 'http://127.0.0.1:9/', sorting: 'oldest', ordered: true, limit: 100 });
    const done = slow.run(token.uuid, running.id);
    while (seen.length < 3) await new Promise((r) => setTimeout(r, 5));
    expect((await slow.cancel(token, running.id))!.cancel_requested).toBe(true);
    release();
    await done;
    expect(await store.replays.get(token.uuid, running.id)).toMatchObject({ status: 'cancelled', processed: 3 });
    expect(seen).toHaveLength(3);
  });

  it('stops when another instance cancels it through the store', async () => {
    const seen: string[] = [];
    const running = new ReplayService({
      store,
      clock: { now: () => Date.now() },
      logger: silentLogger,
      actions: () => null,
      isFatal: () => false,
      forward: async (record) => {
        seen.push(record.uuid);
        await new Promise((r) => setTimeout(r, 20));
        return { status: 200 };
      },
    });
    const other = service(null, []);
    const r = await running.create(token, { mode: 'forward', url: 'http://127.0.0.1:9/', sorting: 'oldest', ordered: true, limit: 200 });
    const done = running.run(token.uuid, r.id);
    while (seen.length < 5) await new Promise((x) => setTimeout(x, 5));
    expect((await other.cancel(token, r.id))!.cancel_requested).toBe(true);
    await done;
    const end = await store.replays.get(token.uuid, r.id);
    expect(end!.status).toBe('cancelled');
    expect(end!.processed).toBeLessThan(100);
    expect(seen.length).toBe(end!.ran); // the e-mail among them is skipped, not forwarded
  });

  it('ends a replay left running by a stopped instance as failed, saying so', async () => {
    const replays = service(null, []);
    const r = await replays.create(token, { mode: 'forward', url: 'http://127.0.0.1:9/', sorting: 'oldest', ordered: true, limit: 10 });
    await store.replays.update(r.id, { status: 'running', updated_at: Date.now() - 3 * 60_000 });
    await replays.run(token.uuid, r.id);
    const end = await store.replays.get(token.uuid, r.id);
    expect(end).toMatchObject({ status: 'failed', processed: 0 });
    expect(end!.error).toMatch(/stopped before it finished/);
  });
});
