// webhook_get_requests reads through this: same account, same group or none; search language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../store/sqlite/index.js';
import { sampleRequest, sampleToken } from '../store/store.contract.js';
import type { Store, TokenRecord } from '../store/types.js';
import { requestReader, tokenRefOf } from './request-reader.js';

let store: Store;
const clock = { now: () => Date.UTC(2024, 0, 10) };
let chain: TokenRecord;
let sibling: TokenRecord;
let otherGroup: TokenRecord;
let ungrouped: TokenRecord;
let stranger: TokenRecord;

beforeAll(async () => {
  store = createSqliteStore(':memory:');
  chain = sampleToken({ user_id: 1, group_id: 7 });
  sibling = sampleToken({ user_id: 1, group_id: 7, alias: 'sibling-one' });
  otherGroup = sampleToken({ user_id: 1, group_id: 8 });
  ungrouped = sampleToken({ user_id: 1, group_id: null });
  stranger = sampleToken({ user_id: 2, group_id: null });
  for (const t of [chain, sibling, otherGroup, ungrouped, stranger]) await store.tokens.create(t);
  for (let i = 0; i < 5; i++) {
    await store.requests.insert(sampleRequest(sibling.uuid, { method: i % 2 ? 'GET' : 'POST', created_at: Date.UTC(2024, 0, 1, 0, i), body: Buffer.from(`body ${i}`) }), 100);
  }
  await store.requests.insert(sampleRequest(ungrouped.uuid), 100);
  await store.requests.insert(sampleRequest(stranger.uuid), 100);
});
afterAll(() => store?.close());

describe('request reader', () => {
  const reader = () => requestReader(store, chain, clock);

  it('reads a sibling by UUID, alias or capture URL, newest first, limited, or oldest first', async () => {
    const byId = await reader().list(sibling.uuid, { limit: 3 });
    expect(byId.map((r) => r.content)).toEqual(['body 4', 'body 3', 'body 2']);
    expect((await reader().list('sibling-one', { limit: 1 }))[0]!.content).toBe('body 4');
    expect((await reader().list(`https://hook.example/${sibling.uuid}/x?y=1`, { limit: 1, sorting: 'oldest' }))[0]!.content).toBe('body 0');
    expect(await reader().list(sibling.uuid, { limit: 0 })).toEqual([]);
  });

  it('filters with the search language and rejects a bad query', async () => {
    const gets = await reader().list(sibling.uuid, { limit: 10, query: 'method:GET' });
    expect(gets.map((r) => r.method)).toEqual(['GET', 'GET']);
    await expect(reader().list(sibling.uuid, { limit: 10, query: '((' })).rejects.toThrow(/Invalid query/);
  });

  it('reads tokens in no group, but not another group’s or another account’s', async () => {
    expect(await reader().list(ungrouped.uuid, { limit: 10 })).toHaveLength(1);
    await expect(reader().list(otherGroup.uuid, { limit: 10 })).rejects.toThrow(/not found, or not in this URL's account and group/);
    await expect(reader().list(stranger.uuid, { limit: 10 })).rejects.toThrow(/not found/);
    await expect(reader().list('00000000-0000-4000-8000-000000000000', { limit: 10 })).rejects.toThrow(/not found/);
  });

  it('lets an anonymous token read only itself', async () => {
    const anon = sampleToken({ user_id: null, group_id: null });
    await store.tokens.create(anon);
    await store.requests.insert(sampleRequest(anon.uuid), 100);
    const own = requestReader(store, anon, clock);
    expect(await own.list(anon.uuid, { limit: 5 })).toHaveLength(1);
    await expect(own.list(ungrouped.uuid, { limit: 5 })).rejects.toThrow(/not found/);
  });

  it('takes the token out of a capture URL', () => {
    expect(tokenRefOf(' https://h.test/abc-def/x ')).toBe('abc-def');
    expect(tokenRefOf('my-alias')).toBe('my-alias');
  });
});
