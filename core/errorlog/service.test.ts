// The error log's recorder against a real (in-memory SQLite) store: entries are buffered and written
// together, never fail the caller, are cut to MAX_MESSAGE, and beyond MAX_PENDING are dropped.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { ScheduleRecord, Store, TokenRecord } from '../store/types.js';
import { ErrorLog, MAX_MESSAGE, MAX_PENDING } from './service.js';

let store: Store;
const clock = { now: () => 1_700_000_000_000 };
const token = { uuid: 'tok-1', user_id: 42 } as TokenRecord;

beforeEach(() => {
  store = createSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

describe('ErrorLog', () => {
  it('writes a chain run’s errors together, naming each action’s type, after the flush interval', async () => {
    const log = new ErrorLog(store, clock, silentLogger, { keep: 100, flushMs: 10_000 });
    log.actionErrors(
      token,
      'req-1',
      [
        { action: 'a1', message: 'first' },
        { action: '', message: 'chain budget spent' },
      ],
      new Map([['a1', 'http']]),
    );
    expect((await store.errorLog.list({ userId: 42 }, {}, 1, 10)).total).toBe(0);
    await log.flush();
    const items = (await store.errorLog.list({ userId: 42 }, {}, 1, 10)).items;
    expect(items.map((e) => [e.action_id, e.action_type, e.message, e.request_id, e.token_id])).toEqual([
      [null, null, 'chain budget spent', 'req-1', 'tok-1'],
      ['a1', 'http', 'first', 'req-1', 'tok-1'],
    ]);
    expect(items.every((e) => !e.read && e.created_at === clock.now())).toBe(true);
  });

  it('flushes by itself shortly after the first entry', async () => {
    const log = new ErrorLog(store, clock, silentLogger, { keep: 100, flushMs: 5 });
    log.actionErrors(token, null, [{ action: 'a', message: 'm' }], new Map());
    await expect.poll(async () => await store.errorLog.unread({ userId: 42 })).toBe(1);
  });

  it('records a failed schedule run with its name and the log’s error, or the status of a server error', async () => {
    const log = new ErrorLog(store, clock, silentLogger, { keep: 100 });
    const schedule = { id: 9, user_id: 42, document: { metadata: { name: 'Ping' } } } as unknown as ScheduleRecord;
    const entry = { response_status: 0, error: 'Request failed: refused', created_at: 5 } as never;
    log.scheduleFailure(schedule, entry);
    log.scheduleFailure(schedule, { response_status: 503, error: null, created_at: 6 } as never);
    await log.flush();
    const items = (await store.errorLog.list({ userId: 42 }, { source: 'schedule' }, 1, 10)).items;
    expect(items.map((e) => [e.schedule_id, e.schedule_name, e.message, e.created_at])).toEqual([
      [9, 'Ping', 'Server error: status 503', 6],
      [9, 'Ping', 'Request failed: refused', 5],
    ]);
  });

  it('cuts long messages and drops entries beyond MAX_PENDING instead of growing without bound', async () => {
    const log = new ErrorLog(store, clock, silentLogger, { keep: MAX_PENDING * 2, flushMs: 60_000 });
    log.actionErrors(token, null, [{ action: 'a', message: 'x'.repeat(MAX_MESSAGE + 50) }], new Map());
    for (let i = 0; i < MAX_PENDING + 5; i++) log.actionErrors(token, null, [{ action: 'a', message: `m${i}` }], new Map());
    await log.flush();
    const page = await store.errorLog.list({ userId: 42 }, {}, 100, 100);
    expect((await store.errorLog.list({ userId: 42 }, {}, 1, 1)).total).toBe(MAX_PENDING);
    expect(page.items.at(-1)!.message).toHaveLength(MAX_MESSAGE + 1);
  });

  it('a store that fails loses the batch, logs it, and never throws at the caller', async () => {
    const errors: unknown[] = [];
    const logger = { ...silentLogger, error: (msg: string, fields?: Record<string, unknown>) => void errors.push([msg, fields]) };
    await store.close();
    const log = new ErrorLog(store, clock, logger, { keep: 10 });
    log.actionErrors(token, null, [{ action: 'a', message: 'm' }], new Map());
    await expect(log.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    store = createSqliteStore(':memory:');
  });
});
