// The replays' part of the storage contract (ReplayRepo), run by runStoreContract against every
// adapter; also the request walk a replay makes (a query AND a sorting range, oldest or newest first).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { QueryNode } from './query/index.js';
import type { ReplayRecord, RequestRecord, Store, TokenRecord } from './types.js';

export function sampleReplay(tokenId: string, over: Partial<ReplayRecord> = {}): ReplayRecord {
  return {
    id: randomUUID(),
    token_id: tokenId,
    user_id: 7,
    mode: 'actions',
    url: null,
    method: null,
    query: null,
    sorting: 'oldest',
    ordered: false,
    limit: 100_000,
    status: 'queued',
    cancel_requested: false,
    total: 0,
    processed: 0,
    ran: 0,
    failed: 0,
    skipped: 0,
    log: [],
    error: null,
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
    started_at: null,
    finished_at: null,
    ...over,
  };
}

export function runReplaysContract(store: () => Store, sampleToken: (over?: Partial<TokenRecord>) => TokenRecord, sampleRequest: (tokenId: string, over?: Partial<RequestRecord>) => RequestRecord): void {
  describe('replays', () => {
    it('round-trips a replay, updates its progress, lists newest first, keeps the newest N, and goes with its token', async () => {
      const s = store();
      const t = sampleToken();
      await s.tokens.create(t);
      const a = sampleReplay(t.uuid, { created_at: 1000, mode: 'forward', url: 'http://127.0.0.1:9/x', method: 'PUT', query: 'method:POST', sorting: 'newest', ordered: true, limit: 5 });
      await s.replays.create(a, 3);
      expect(await s.replays.get(t.uuid, a.id)).toEqual(a);
      expect(await s.replays.get('another-token', a.id)).toBeNull();
      const log = [{ request_id: 'r1', outcome: 'failed' as const, message: 'HTTP 500' }];
      const updated = await s.replays.update(a.id, { status: 'running', processed: 2, ran: 1, failed: 1, log, started_at: 1001, updated_at: 1002, cancel_requested: true });
      expect(updated).toEqual({ ...a, status: 'running', processed: 2, ran: 1, failed: 1, log, started_at: 1001, updated_at: 1002, cancel_requested: true });
      expect(await s.replays.update(a.id, {})).toEqual(updated);
      expect(await s.replays.update('no-such-replay', { status: 'done' })).toBeNull();
      const b = sampleReplay(t.uuid, { created_at: 2000 });
      const c = sampleReplay(t.uuid, { created_at: 3000 });
      const d = sampleReplay(t.uuid, { created_at: 4000 });
      for (const r of [b, c, d]) await s.replays.create(r, 3);
      expect((await s.replays.list(t.uuid, 10)).map((r) => r.id)).toEqual([d.id, c.id, b.id]);
      expect((await s.replays.list(t.uuid, 2)).map((r) => r.id)).toEqual([d.id, c.id]);
      expect(await s.replays.get(t.uuid, a.id)).toBeNull();
      await s.tokens.delete(t.uuid);
      expect(await s.replays.list(t.uuid, 10)).toEqual([]);
      expect(await s.replays.get(t.uuid, d.id)).toBeNull();
    });

    it('walks the requests matching a query past a sorting key, oldest or newest first', async () => {
      const s = store();
      const t = sampleToken();
      await s.tokens.create(t);
      const rs: RequestRecord[] = [];
      for (let i = 0; i < 6; i++) rs.push(sampleRequest(t.uuid, { method: i % 2 ? 'GET' : 'POST' }));
      for (const r of rs) await s.requests.insert(r, 100);
      const posts = rs.filter((r) => r.method === 'POST');
      const method: QueryNode = { kind: 'term', field: 'method', value: 'POST', quoted: false, pos: 0 };
      const after = (from: number): QueryNode => ({ kind: 'and', children: [method, { kind: 'range', field: 'sorting', from: String(from), to: null, includeFrom: false, includeTo: true, pos: 0 }] });
      const before = (to: number): QueryNode => ({ kind: 'and', children: [method, { kind: 'range', field: 'sorting', from: null, to: String(to), includeFrom: true, includeTo: false, pos: 0 }] });
      const first = await s.requests.list(t.uuid, { query: method, sorting: 'oldest', page: 1, perPage: 2 });
      expect(first.total).toBe(3);
      expect(first.items.map((r) => r.uuid)).toEqual([posts[0]!.uuid, posts[1]!.uuid]);
      const next = await s.requests.list(t.uuid, { query: after(first.items[1]!.sorting), sorting: 'oldest', page: 1, perPage: 2 });
      expect(next.items.map((r) => r.uuid)).toEqual([posts[2]!.uuid]);
      const back = await s.requests.list(t.uuid, { query: before(posts[2]!.sorting), sorting: 'newest', page: 1, perPage: 2 });
      expect(back.items.map((r) => r.uuid)).toEqual([posts[1]!.uuid, posts[0]!.uuid]);
    });
  });
}
