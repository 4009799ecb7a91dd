// Removing a user hands over their schedules as it hands over their tokens, on SQLite and on MongoDB
// (MONGODB_URI, or the emulator .ci/run installs): `tokens=team` gives them to the Administrator
// removing the user, `tokens=delete` deletes them and cancels their jobs.
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEDULES } from '../core/service-keys.js';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName, withDatabase } from './helpers/mongo.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';

const mongo = await startTestMongo();
afterAll(() => mongo?.stop());

// The scheduler plans jobs but runs none: hourly schedules and no processing.
const env = { SMTP_ENABLED: 'false', SCHEDULER_ENABLED: 'false' } as const;
const stores: Array<[string, () => Promise<{ s: TestServer; done: () => Promise<void> }>, string | null]> = [
  [
    'SQLite',
    async () => {
      const s = await startTestServer(env);
      return { s, done: () => s.close() };
    },
    null,
  ],
  [
    'MongoDB',
    async () => {
      const db = testDbName('capture_userremoval');
      const s = await startTestServer({ ...env, MONGODB_URI: withDatabase(mongo!.uri, db) });
      return { s, done: async () => (await s.close(), await discardStoreData(mongo!.uri, db)) };
    },
    mongo ? null : NO_MONGO,
  ],
];

describe.each(stores)('removing a user, their schedules: %s', (_name, start, skip) => {
  it.skipIf(skip !== null)('tokens=team gives them to the Administrator removing the user; tokens=delete deletes them and their jobs', async () => {
    const { s, done } = await start();
    try {
      const admin = await s.user(true);
      const invite = async (name: string) => {
        const inv = await s.call('POST', '/users/invite', { key: admin.key, json: { name, email: `${name}.${Date.now()}@example.test`, user_type_id: 200 } });
        const acc = await s.call('POST', `/users/invite/${String(inv.data.invite_url).split('/#/invite/')[1]}/accept`);
        expect(acc.status).toBe(201);
        return { id: acc.data.id as number, key: acc.data.api_key as string };
      };
      const schedule = async (key: string, name: string) => {
        const c = await s.call('POST', '/schedules', { key, json: { name, interval: 'hourly', request_url: 'https://example.test/health' } });
        expect(c.status).toBe(200);
        return c.data.id as number;
      };
      const { scheduler } = s.provided.get(SCHEDULES)!;
      const jobs = async (scheduleId: number) => (await scheduler.agenda.queryJobs({ name: 'schedule.run', data: { scheduleId } })).jobs.length;

      const kept = await invite('kept');
      const gone = await invite('gone');
      const keptSchedule = await schedule(kept.key, 'handed over');
      const goneSchedule = await schedule(gone.key, 'deleted');
      expect([await jobs(keptSchedule), await jobs(goneSchedule)]).toEqual([1, 1]);

      // No tokens, only a schedule: it still goes to the Administrator, and keeps running.
      expect((await s.call('DELETE', `/users/${kept.id}`, { key: admin.key })).status).toBe(204);
      expect((await s.call('GET', `/schedules/${keptSchedule}`, { key: admin.key })).data).toMatchObject({ id: keptSchedule, user_id: admin.id, name: 'handed over' });
      expect(await jobs(keptSchedule)).toBe(1);

      expect((await s.call('DELETE', `/users/${gone.id}?tokens=delete`, { key: admin.key })).status).toBe(204);
      expect((await s.call('GET', `/schedules/${goneSchedule}`, { key: admin.key })).status).toBe(404);
      expect(await jobs(goneSchedule)).toBe(0);
      const names = (await s.call('GET', '/schedules', { key: admin.key })).data.data.map((x: { name: string }) => x.name);
      expect(names).toEqual(['handed over']);
    } finally {
      await done();
    }
  });

  it.skipIf(skip !== null)('with nobody left in the team to take their schedules, only tokens=delete removes the user', async () => {
    const { s, done } = await start();
    try {
      const solo = await s.user(true);
      const c = await s.call('POST', '/schedules', { key: solo.key, json: { name: 'alone', interval: 'hourly', request_url: 'https://example.test/' } });
      const r = await s.call('DELETE', `/users/${solo.id}`, { key: ADMIN_KEY });
      expect(r.status).toBe(409);
      expect((await s.call('GET', `/schedules/${c.data.id}`, { key: solo.key })).status).toBe(200);
      expect((await s.call('DELETE', `/users/${solo.id}?tokens=delete`, { key: ADMIN_KEY })).status).toBe(204);
      expect((await s.call('GET', '/users/me', { key: solo.key })).status).toBe(401);
    } finally {
      await done();
    }
  });
});
