// The share links' and error log's part of the storage contract, run by runStoreContract against
// every adapter.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ErrorLogRecord, Store, TokenRecord } from './types.js';

type Entry = Omit<ErrorLogRecord, 'id'>;

/** An account id of its own per test (the log refers to users by id only). */
const account = () => 1_000_000 + Math.floor(Math.random() * 1_000_000_000);

function entry(over: Partial<Entry>): Entry {
  return {
    user_id: null,
    source: 'action',
    token_id: null,
    request_id: null,
    action_id: null,
    action_type: null,
    schedule_id: null,
    schedule_name: null,
    message: 'failed',
    read: false,
    created_at: 1_700_000_000_000,
    ...over,
  };
}

export function runShareAndErrorLogContract(name: string, store: () => Store, sampleToken: (over?: Partial<TokenRecord>) => TokenRecord): void {
  describe(`share links and error log: ${name}`, () => {
    it('keeps one share per token, replaced by a new secret, gone with the token', async () => {
      const s = store();
      const t = sampleToken();
      await s.tokens.create(t);
      expect(await s.shares.get(t.uuid)).toBeNull();
      await s.shares.put({ token_id: t.uuid, hash: 'h1-' + t.uuid, created_at: 1 });
      await s.shares.put({ token_id: t.uuid, hash: 'h2-' + t.uuid, created_at: 2 });
      expect(await s.shares.get(t.uuid)).toEqual({ token_id: t.uuid, hash: 'h2-' + t.uuid, created_at: 2 });
      expect(await s.shares.delete(t.uuid)).toBe(true);
      expect(await s.shares.delete(t.uuid)).toBe(false);
      expect(await s.shares.get(t.uuid)).toBeNull();
      await s.shares.put({ token_id: t.uuid, hash: 'h3-' + t.uuid, created_at: 3 });
      await s.tokens.delete(t.uuid);
      expect(await s.shares.get(t.uuid)).toBeNull();
    });

    describe('error log', () => {
      let userA: number;
      let userB: number;
      beforeAll(async () => {
        const s = store();
        userA = account();
        userB = account();
        await s.errorLog.add(
          [
            entry({ user_id: userA, token_id: 'tok-a', action_id: 'act-1', action_type: 'http', message: 'Connection refused' }),
            entry({ user_id: userA, source: 'schedule', schedule_id: 7, schedule_name: 'Nightly Ping', message: 'Check failed: status 500' }),
            entry({ user_id: userB, token_id: 'tok-b', action_type: 'javascript', message: 'ReferenceError: x' }),
            entry({ user_id: null, token_id: 'tok-anon', action_type: 'http', message: 'anonymous failure' }),
          ],
          100,
        );
      });

      it('lists one account newest first, with ids in insertion order', async () => {
        const l = await store().errorLog.list({ userId: userA }, {}, 1, 10);
        expect(l.total).toBe(2);
        expect(l.items.map((e) => e.message)).toEqual(['Check failed: status 500', 'Connection refused']);
        expect(l.items[0]!.id).toBeGreaterThan(l.items[1]!.id);
        expect(l.items[1]).toMatchObject({ user_id: userA, source: 'action', token_id: 'tok-a', action_id: 'act-1', action_type: 'http', read: false, schedule_id: null });
        expect(l.items[0]).toMatchObject({ source: 'schedule', schedule_id: 7, schedule_name: 'Nightly Ping', token_id: null });
      });

      it('keeps accounts apart; anonymous tokens are an account of their own; all sees every entry', async () => {
        const s = store();
        expect((await s.errorLog.list({ userId: userB }, {}, 1, 10)).items.map((e) => e.token_id)).toEqual(['tok-b']);
        expect((await s.errorLog.list({ userId: null }, {}, 1, 10)).items.map((e) => e.token_id)).toContain('tok-anon');
        expect((await s.errorLog.list({ userId: null }, {}, 1, 10)).items.every((e) => e.user_id === null)).toBe(true);
        const all = await s.errorLog.list({ all: true }, {}, 1, 100);
        expect(all.items.map((e) => e.message)).toEqual(expect.arrayContaining(['Connection refused', 'ReferenceError: x', 'anonymous failure']));
      });

      it('searches message, action type, token and schedule name case-insensitively, and filters', async () => {
        const s = store();
        const search = async (text: string) => (await s.errorLog.list({ userId: userA }, { search: text }, 1, 10)).items.map((e) => e.message);
        expect(await search('REFUSED')).toEqual(['Connection refused']);
        expect(await search('nightly')).toEqual(['Check failed: status 500']);
        expect(await search('HTTP')).toEqual(['Connection refused']);
        expect(await search('tok-a')).toEqual(['Connection refused']);
        expect(await search('%')).toEqual([]);
        expect(await search('.*')).toEqual([]);
        expect((await s.errorLog.list({ userId: userA }, { source: 'schedule' }, 1, 10)).items.map((e) => e.schedule_id)).toEqual([7]);
        expect((await s.errorLog.list({ userId: userA }, { tokenId: 'tok-a' }, 1, 10)).total).toBe(1);
        expect((await s.errorLog.list({ userId: userA }, { scheduleId: 7 }, 1, 10)).total).toBe(1);
        const p2 = await s.errorLog.list({ userId: userA }, {}, 2, 1);
        expect(p2.total).toBe(2);
        expect(p2.items.map((e) => e.message)).toEqual(['Connection refused']);
      });

      it('counts unread entries and marks them read by id, up to an id, or all', async () => {
        const s = store();
        const u = account();
        await s.errorLog.add(
          [1, 2, 3, 4].map((n) => entry({ user_id: u, message: `m${n}` })),
          100,
        );
        const ids = (await s.errorLog.list({ userId: u }, {}, 1, 10)).items.map((e) => e.id).reverse();
        expect(await s.errorLog.unread({ userId: u })).toBe(4);
        expect(await s.errorLog.markRead({ userId: userB }, [ids[0]!])).toBe(0);
        expect(await s.errorLog.markRead({ userId: u }, [ids[0]!])).toBe(1);
        expect(await s.errorLog.markRead({ userId: u }, [])).toBe(0);
        expect(await s.errorLog.unread({ userId: u })).toBe(3);
        expect(await s.errorLog.markRead({ userId: u }, null, ids[2]!)).toBe(2);
        expect((await s.errorLog.list({ userId: u }, { unread: true }, 1, 10)).items.map((e) => e.message)).toEqual(['m4']);
        expect(await s.errorLog.markRead({ userId: u }, null)).toBe(1);
        expect(await s.errorLog.unread({ userId: u })).toBe(0);
        expect((await s.errorLog.list({ userId: u }, {}, 1, 10)).items.every((e) => e.read)).toBe(true);
      });

      it('keeps only the newest entries of each account it adds to', async () => {
        const s = store();
        const u = account();
        await s.errorLog.add(
          [1, 2, 3].map((n) => entry({ user_id: u, message: `old${n}` })),
          3,
        );
        await s.errorLog.add(
          [4, 5].map((n) => entry({ user_id: u, message: `new${n}` })),
          3,
        );
        expect((await s.errorLog.list({ userId: u }, {}, 1, 10)).items.map((e) => e.message)).toEqual(['new5', 'new4', 'old3']);
        // Other accounts are untouched.
        expect((await s.errorLog.list({ userId: userA }, {}, 1, 10)).total).toBe(2);
      });
    });
  });
}
