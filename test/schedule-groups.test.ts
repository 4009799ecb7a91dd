// Schedules in groups through the HTTP API, on SQLite and on MongoDB (MONGODB_URI, or the emulator
// .ci/run installs): a schedule's group_id (set, checked, shown, filtered, exported as a document),
// the team's schedules for every member, and a user limited to groups opening only theirs.
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName, withDatabase } from './helpers/mongo.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const mongo = await startTestMongo();
afterAll(() => mongo?.stop());

const stores: Array<[string, () => Promise<{ s: TestServer; done: () => Promise<void> }>, string | null]> = [
  [
    'SQLite',
    async () => {
      const s = await startTestServer({ SMTP_ENABLED: 'false', SCHEDULER_ENABLED: 'false' });
      return { s, done: () => s.close() };
    },
    null,
  ],
  [
    'MongoDB',
    async () => {
      const db = testDbName('capture_schedgroups');
      const s = await startTestServer({ SMTP_ENABLED: 'false', SCHEDULER_ENABLED: 'false', MONGODB_URI: withDatabase(mongo!.uri, db) });
      return { s, done: async () => (await s.close(), await discardStoreData(mongo!.uri, db)) };
    },
    mongo ? null : NO_MONGO,
  ],
];

const body = (name: string, extra: Record<string, unknown> = {}) => ({ name, interval: 'hourly', request_url: 'https://example.test/health', ...extra });

describe.each(stores)('schedules in groups: %s', (_name, start, skip) => {
  it.skipIf(skip !== null)("a schedule has a group of the team; members share the team's schedules; limited users only theirs", async () => {
    const { s, done } = await start();
    try {
      const admin = await s.user(true);
      const outsider = await s.user(true);
      const group = async (key: string, name: string) => (await s.call('POST', '/groups', { key, json: { name } })).data.id as number;
      const [sales, ops] = [await group(admin.key, 'Sales'), await group(admin.key, 'Ops')];
      const theirs = await group(outsider.key, 'Theirs');
      const invite = async (user_type_id: number) => {
        const inv = await s.call('POST', '/users/invite', { key: admin.key, json: { name: `p${user_type_id}`, email: `p${user_type_id}.${Date.now()}@example.test`, user_type_id } });
        const acc = await s.call('POST', `/users/invite/${String(inv.data.invite_url).split('/#/invite/')[1]}/accept`);
        expect(acc.status).toBe(201);
        return { id: acc.data.id as number, key: acc.data.api_key as string };
      };
      const member = await invite(200);
      const viewer = await invite(300);

      // group_id: set on create, shown, checked against the team's groups.
      const inSales = await s.call('POST', '/schedules', { key: admin.key, json: body('sales', { group_id: sales }) });
      expect([inSales.status, inSales.data.group_id]).toEqual([200, sales]);
      const inOps = (await s.call('POST', '/schedules', { key: admin.key, json: body('ops', { group_id: ops }) })).data;
      const loose = (await s.call('POST', '/schedules', { key: admin.key, json: body('loose') })).data;
      expect(loose.group_id).toBeNull();
      for (const group_id of [theirs, 999_999]) {
        const bad = await s.call('POST', '/schedules', { key: admin.key, json: body('x', { group_id }) });
        expect([bad.status, Object.keys(bad.data.errors)]).toEqual([422, ['group_id']]);
      }
      // A member of the team may use the team's groups; an update without group_id keeps it.
      const byMember = await s.call('POST', '/schedules', { key: member.key, json: body('by member', { group_id: ops }) });
      expect([byMember.status, byMember.data.group_id]).toEqual([200, ops]);
      const renamed = await s.call('PUT', `/schedules/${inSales.data.id}`, { key: admin.key, json: body('sales 2') });
      expect([renamed.data.name, renamed.data.group_id]).toEqual(['sales 2', sales]);
      const moved = await s.call('PUT', `/schedules/${loose.id}`, { key: admin.key, json: body('loose', { group_id: ops }) });
      expect(moved.data.group_id).toBe(ops);
      const back = await s.call('PUT', `/schedules/${loose.id}`, { key: admin.key, json: body('loose', { group_id: null }) });
      expect(back.data.group_id).toBeNull();

      // The list is the team's, filtered by group like everything else of the team.
      const names = async (key: string, query = '') => (await s.call('GET', `/schedules${query}`, { key })).data.data.map((x: { name: string }) => x.name);
      expect(await names(admin.key)).toEqual(['sales 2', 'ops', 'loose', 'by member']);
      expect(await names(viewer.key)).toEqual(['sales 2', 'ops', 'loose', 'by member']);
      expect(await names(admin.key, `?group_id=${ops}`)).toEqual(['ops', 'by member']);
      expect(await names(outsider.key)).toEqual([]);
      expect((await s.call('GET', `/schedules/${inOps.id}`, { key: outsider.key })).status).toBe(404);
      expect((await s.call('GET', '/schedules?group_id=x', { key: admin.key })).status).toBe(422);
      // A Viewer reads the team's schedules but changes none.
      expect((await s.call('GET', `/schedules/${inOps.id}`, { key: viewer.key })).status).toBe(200);
      expect((await s.call('PUT', `/schedules/${inOps.id}`, { key: viewer.key, json: body('no') })).status).toBe(403);
      expect((await s.call('POST', `/schedules/${inOps.id}/run-now`, { key: viewer.key })).status).toBe(403);

      // The document carries the group; replacing it with another group checks that one.
      const yaml = await s.call('GET', `/schedules/${inSales.data.id}/document`, { key: admin.key });
      const doc = YAML.parse(yaml.text);
      expect(doc.metadata.group_id).toBe(sales);
      const viaDoc = await s.call('PUT', `/schedules/${inSales.data.id}/document`, {
        key: admin.key,
        body: YAML.stringify({ ...doc, metadata: { ...doc.metadata, group_id: theirs } }),
        headers: { 'Content-Type': 'application/yaml' },
      });
      expect([viaDoc.status, Object.keys(viaDoc.data.errors)]).toEqual([422, ['group_id']]);
      const toOps = await s.call('PUT', `/schedules/${inSales.data.id}/document`, { key: admin.key, json: { ...doc, metadata: { ...doc.metadata, group_id: ops } } });
      expect([toOps.status, toOps.data.group_id]).toEqual([200, ops]);
      await s.call('PUT', `/schedules/${inSales.data.id}`, { key: admin.key, json: body('sales 2', { group_id: sales }) });

      // Limit the member to Sales: they list, read, run and change only schedules in Sales.
      expect((await s.call('PUT', `/users/${member.id}`, { key: admin.key, json: { group_ids: [sales] } })).status).toBe(200);
      expect(await names(member.key)).toEqual(['sales 2']);
      expect(await names(member.key, `?group_id=${ops}`)).toEqual([]);
      for (const [method, path] of [
        ['GET', `/schedules/${inOps.id}`],
        ['GET', `/schedules/${loose.id}`],
        ['GET', `/schedules/${byMember.data.id}/logs`],
        ['GET', `/schedules/${inOps.id}/document`],
        ['POST', `/schedules/${inOps.id}/run-now`],
        ['DELETE', `/schedules/${inOps.id}`],
      ] as const) {
        const r = await s.call(method, path, { key: member.key });
        expect([path, r.status, r.data.message]).toEqual([path, 403, 'This schedule is outside the groups you may open']);
      }
      expect((await s.call('PUT', `/schedules/${inOps.id}`, { key: member.key, json: body('taken') })).status).toBe(403);
      expect((await s.call('GET', `/schedules/${inSales.data.id}`, { key: member.key })).status).toBe(200);
      // New schedules go in one of their groups, and stay there.
      const none = await s.call('POST', '/schedules', { key: member.key, json: body('none') });
      expect([none.status, Object.keys(none.data.errors)]).toEqual([422, ['group_id']]);
      expect((await s.call('POST', '/schedules', { key: member.key, json: body('ops', { group_id: ops }) })).status).toBe(422);
      const made = await s.call('POST', '/schedules', { key: member.key, json: body('mine', { group_id: sales }) });
      expect(made.status).toBe(200);
      for (const group_id of [ops, null]) {
        expect((await s.call('PUT', `/schedules/${made.data.id}`, { key: member.key, json: body('mine', { group_id }) })).status).toBe(422);
      }
      expect((await s.call('PUT', `/schedules/${made.data.id}`, { key: member.key, json: body('mine 2') })).data).toMatchObject({ name: 'mine 2', group_id: sales });

      // Deleting a group takes its schedules out of it; lifting the limit opens the team's again.
      expect((await s.call('DELETE', `/groups/${ops}`, { key: admin.key })).status).toBe(204);
      expect((await s.call('GET', `/schedules/${inOps.id}`, { key: admin.key })).data.group_id).toBeNull();
      await s.call('PUT', `/users/${member.id}`, { key: admin.key, json: { group_ids: null } });
      expect((await names(member.key)).length).toBe(5);
    } finally {
      await done();
    }
  });
});
