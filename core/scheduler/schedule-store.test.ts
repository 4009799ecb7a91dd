// The schedules part of the storage port, on SQLite (always) and MongoDB (when MONGODB_URI is set).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { NewScheduleLog, Store } from '../store/types.js';

function scheduleRepoContract(label: string, open: () => Promise<{ store: Store; cleanup(): Promise<void> }>) {
  describe(`schedule repository: ${label}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => cleanup());

    const doc = (name: string) => ({ apiVersion: 'capture/v1', kind: 'Schedule', metadata: { name }, spec: { interval: 'hourly', 'x.y': { $z: 1 } } });
    const log = (scheduleId: number, n: number): NewScheduleLog => ({
      schedule_id: scheduleId,
      response_status: 200 + n,
      response_headers: { 'Content-Type': ['text/plain'], 'x.dotted': ['a', 'b'] },
      response_body: `body ${n}`,
      time: 0.25,
      error: n % 2 ? 'odd' : null,
      created_at: 1000 + n,
      updated_at: 1000 + n,
    });

    it('creates, reads, lists per user, updates and deletes schedules', async () => {
      const a = await store.schedules.create({ user_id: 1, document: doc('a'), source: null, last_run_at: null, last_status: null, created_at: 10, updated_at: 10 });
      const b = await store.schedules.create({ user_id: 1, document: doc('b'), source: 'file:x.yaml#b', last_run_at: null, last_status: null, created_at: 11, updated_at: 11 });
      await store.schedules.create({ user_id: 2, document: doc('c'), source: null, last_run_at: null, last_status: null, created_at: 12, updated_at: 12 });
      expect(b.id).toBeGreaterThan(a.id);
      expect(await store.schedules.get(a.id)).toEqual(a);
      expect((await store.schedules.get(a.id))!.document).toEqual(doc('a'));
      expect((await store.schedules.getBySource('file:x.yaml#b'))!.id).toBe(b.id);
      expect(await store.schedules.getBySource('nope')).toBeNull();
      const page = await store.schedules.list({ userIds: [1] }, 2, 1);
      expect(page.total).toBe(2);
      expect(page.items.map((s) => s.id)).toEqual([b.id]);
      expect(await store.schedules.ids(a.id, 10)).toHaveLength(2);
      const u = await store.schedules.update(a.id, doc('renamed'), 20);
      expect(u).toMatchObject({ id: a.id, updated_at: 20, document: doc('renamed'), created_at: 10 });
      expect(await store.schedules.update(9999, doc('x'), 20)).toBeNull();
      await store.schedules.recordRun(a.id, 30, 503);
      expect(await store.schedules.get(a.id)).toMatchObject({ last_run_at: 30, last_status: 503 });
      expect(await store.schedules.delete(a.id)).toBe(true);
      expect(await store.schedules.delete(a.id)).toBe(false);
      expect(await store.schedules.get(a.id)).toBeNull();
    });

    it('lists by owners and groups, moves a schedule between groups and clears a deleted group', async () => {
      const make = (user_id: number, name: string, group_id?: number | null) =>
        store.schedules.create({ user_id, group_id, document: doc(name), source: null, last_run_at: null, last_status: null, created_at: 1, updated_at: 1 });
      const a = await make(1, 'a', 7);
      const b = await make(2, 'b', 8);
      const c = await make(3, 'c');
      expect(c.group_id).toBeNull();
      expect(a.group_id).toBe(7);
      const names = async (filter: Parameters<typeof store.schedules.list>[0]) => (await store.schedules.list(filter, 1, 10)).items.map((s) => (s.document as { metadata: { name: string } }).metadata.name);
      expect(await names({ userIds: [1, 2, 3] })).toEqual(['a', 'b', 'c']);
      expect(await names({ userIds: [1, 2, 3], groupIds: [8, 9] })).toEqual(['b']);
      expect(await names({ userIds: [1, 2, 3], groupIds: [] })).toEqual([]);
      expect(await names({ userIds: [] })).toEqual([]);
      expect((await store.schedules.list({ userIds: [1, 2, 3], groupIds: [7, 8] }, 1, 1)).total).toBe(2);
      // The group stays unless the update names one.
      expect((await store.schedules.update(a.id, doc('a2'), 5))!.group_id).toBe(7);
      expect((await store.schedules.update(a.id, doc('a2'), 6, 8))!.group_id).toBe(8);
      await store.schedules.clearGroup(8);
      expect((await store.schedules.get(a.id))!.group_id).toBeNull();
      expect((await store.schedules.get(b.id))!.group_id).toBeNull();
      expect(await names({ userIds: [1, 2, 3], groupIds: [8] })).toEqual([]);
    });

    it("gives every schedule of one user to another, keeping groups, and leaves others' alone", async () => {
      const make = (user_id: number, name: string, group_id?: number | null) =>
        store.schedules.create({ user_id, group_id, document: doc(name), source: null, last_run_at: null, last_status: null, created_at: 1, updated_at: 1 });
      const a = await make(1, 'a', 7);
      const b = await make(1, 'b');
      const c = await make(3, 'c');
      expect(await store.schedules.reassignOwner(1, 2, 50)).toBe(2);
      expect(await store.schedules.get(a.id)).toMatchObject({ user_id: 2, group_id: 7, updated_at: 50 });
      expect(await store.schedules.get(b.id)).toMatchObject({ user_id: 2, group_id: null, updated_at: 50 });
      expect(await store.schedules.get(c.id)).toMatchObject({ user_id: 3, updated_at: 1 });
      expect((await store.schedules.list({ userIds: [1] }, 1, 10)).total).toBe(0);
      expect(await store.schedules.reassignOwner(1, 2, 60)).toBe(0);
    });

    it('keeps the TLS certificate fields of a log entry, null when a run set none', async () => {
      const s = await store.schedules.create({ user_id: 1, document: doc('a'), source: null, last_run_at: null, last_status: null, created_at: 1, updated_at: 1 });
      const plain = await store.schedules.addLog(log(s.id, 0), 10);
      expect(plain).toMatchObject({ tls_expires_at: null, tls_days_left: null, tls_alert: null });
      const alerted = await store.schedules.addLog({ ...log(s.id, 2), tls_expires_at: 86_400_000, tls_days_left: -3, tls_alert: 'expired' }, 10);
      expect(alerted).toMatchObject({ tls_expires_at: 86_400_000, tls_days_left: -3, tls_alert: 'expired' });
      expect((await store.schedules.listLogs(s.id, { sorting: 'oldest', page: 1, perPage: 10 })).items).toEqual([plain, alerted]);
    });

    it('adds logs, keeps the newest N, pages them both ways, and deletes them with the schedule', async () => {
      const s = await store.schedules.create({ user_id: 1, document: doc('a'), source: null, last_run_at: null, last_status: null, created_at: 1, updated_at: 1 });
      for (let n = 1; n <= 7; n++) await store.schedules.addLog(log(s.id, n), 5);
      const oldest = await store.schedules.listLogs(s.id, { sorting: 'oldest', page: 1, perPage: 2 });
      expect(oldest.total).toBe(5);
      expect(oldest.items.map((l) => l.response_body)).toEqual(['body 3', 'body 4']);
      expect(oldest.items[0]).toMatchObject({ schedule_id: s.id, response_status: 203, response_headers: { 'Content-Type': ['text/plain'], 'x.dotted': ['a', 'b'] }, time: 0.25, error: 'odd' });
      const newest = await store.schedules.listLogs(s.id, { sorting: 'newest', page: 2, perPage: 2 });
      expect(newest.items.map((l) => l.response_body)).toEqual(['body 5', 'body 4']);
      await store.schedules.delete(s.id);
      expect((await store.schedules.listLogs(s.id, { sorting: 'oldest', page: 1, perPage: 10 })).total).toBe(0);
    });

    it('stores notification settings per user', async () => {
      expect(await store.schedules.getNotificationSettings(5)).toBeNull();
      await store.schedules.putNotificationSettings({ user_id: 5, email: null, email_enabled: true, webhook_url: 'http://hook.test/x', updated_at: 1 });
      await store.schedules.putNotificationSettings({ user_id: 5, email: 'ops@example.test', email_enabled: false, webhook_url: null, updated_at: 2 });
      expect(await store.schedules.getNotificationSettings(5)).toEqual({ user_id: 5, email: 'ops@example.test', email_enabled: false, webhook_url: null, updated_at: 2 });
    });
  });
}

scheduleRepoContract('sqlite', async () => {
  const store = createSqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
});

const uri = process.env.MONGODB_URI;
if (uri) {
  const { createMongoStore } = await import('../store/mongo/index.js');
  const { discardStoreData, testDbName } = await import('../../test/helpers/mongo.js');
  scheduleRepoContract('mongo', async () => {
    const dbName = testDbName('capture_sched');
    const store = await createMongoStore(uri, { dbName });
    return {
      store,
      async cleanup() {
        await store.close();
        await discardStoreData(uri, dbName);
      },
    };
  });
}
