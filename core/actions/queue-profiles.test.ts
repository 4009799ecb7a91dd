// The Queue Profile gate on a moved clock, on both stores: jobs run in line, and no period of
// `rate_period` seconds ever holds more than `rate_limit` starts, across a clock-aligned window's
// edge too. (Through the API with real jobs: core/http/queue-profiles/queue-profiles.test.ts.)
import { randomUUID } from 'node:crypto';
import { fakeClock } from '@capture/sdk/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName } from '../../test/helpers/mongo.js';
import { createMongoStore } from '../store/mongo/index.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { QueueProfileRecord, Store } from '../store/types.js';
import { QueueProfileGate, type ProfileTicket } from './queue-profiles.js';

// Ahead of the wall clock (MongoDB's TTL monitor runs on it), 3 s before a minute starts.
const T0 = Date.UTC(2100, 0, 1, 0, 0, 57);

function profile(over: Partial<QueueProfileRecord> = {}): QueueProfileRecord {
  return { id: randomUUID(), user_id: 1, name: 'crm api', initial_delay: 0, rate_limit: 3, rate_period: 60, job_lifetime: 7 * 86_400, created_at: T0, updated_at: T0, ...over };
}

const mongo = await startTestMongo();
afterAll(() => mongo?.stop());

const stores: Array<[string, (() => Promise<{ store: Store; close(): Promise<void> }>) | null]> = [
  [
    'sqlite',
    async () => {
      const store = createSqliteStore(':memory:');
      return { store, close: () => store.close() };
    },
  ],
  [
    'mongo',
    mongo
      ? async () => {
          const dbName = testDbName('capture_qp');
          const store = await createMongoStore(mongo.uri, { dbName });
          return {
            store,
            close: async () => {
              await store.close();
              await discardStoreData(mongo.uri, dbName);
            },
          };
        }
      : null,
  ],
];

describe.each(stores)('Queue Profile gate on %s', (name, open) => {
  it.skipIf(!open)(`${open ? '' : `${NO_MONGO}: `}no period holds more than rate_limit starts, across a clock-aligned window's edge`, async () => {
    const { store, close } = await open!();
    try {
      const clock = fakeClock(T0);
      const gate = new QueueProfileGate(store.counters, clock);
      const p = profile();
      const tickets: ProfileTicket[] = [];
      for (let i = 0; i < 8; i++) tickets.push(await gate.ticket(p, T0));

      /** Runs the head job at the clock's time if the gate lets it; else says until when it waits. */
      const attempt = async (t: ProfileTicket) => {
        const d = await gate.decide(t, p);
        if (d.kind === 'run') await gate.finish(t);
        return d;
      };
      const started: number[] = [];
      // Three start a second apart, just before the minute turns.
      for (const t of tickets.slice(0, 3)) {
        expect(await attempt(t)).toEqual({ kind: 'run' });
        started.push(clock.now());
        clock.advance(1_000);
      }
      // 00:01:00.5, a new clock minute: an aligned window would let the fourth start; the
      // sliding one holds it until the first start is a period old.
      clock.advance(500);
      expect(await attempt(tickets[3]!)).toEqual({ kind: 'wait', at: T0 + 60_000, why: 'rate' });
      expect(await attempt(tickets[3]!)).toEqual({ kind: 'wait', at: T0 + 60_000, why: 'rate' });
      // A later ticket waits for its turn, not for the rate.
      expect(await gate.decide(tickets[4]!, p)).toMatchObject({ kind: 'wait', why: 'order' });
      // Each waiting job woken when the gate says: every start is the earliest the window allows.
      for (const t of tickets.slice(3)) {
        for (;;) {
          const d = await attempt(t);
          if (d.kind === 'run') break;
          expect(d).toMatchObject({ kind: 'wait', why: 'rate' });
          if (d.kind === 'wait') clock.advance(d.at - clock.now());
        }
        started.push(clock.now());
      }
      expect(started.map((s) => (s - T0) / 1000)).toEqual([0, 1, 2, 60, 61, 62, 120, 121]);
      for (const s of started) expect(started.filter((x) => x >= s && x < s + 60_000).length).toBeLessThanOrEqual(3);
    } finally {
      await close();
    }
  });

  it.skipIf(!open)(`${open ? '' : `${NO_MONGO}: `}a deleted profile no longer throttles, and profiles do not share a window`, async () => {
    const { store, close } = await open!();
    try {
      const clock = fakeClock(T0);
      const gate = new QueueProfileGate(store.counters, clock);
      const [a, b] = [profile({ rate_limit: 1 }), profile({ rate_limit: 1 })];
      const [a1, a2, b1] = [await gate.ticket(a, T0), await gate.ticket(a, T0), await gate.ticket(b, T0)];
      expect(await gate.decide(a1, a)).toEqual({ kind: 'run' });
      await gate.finish(a1);
      expect(await gate.decide(b1, b)).toEqual({ kind: 'run' });
      expect(await gate.decide(a2, a)).toEqual({ kind: 'wait', at: T0 + 60_000, why: 'rate' });
      expect(await gate.decide(a2, null)).toEqual({ kind: 'run' });
    } finally {
      await close();
    }
  });
});
