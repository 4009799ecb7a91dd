import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('groups', () => {
  it('creates, lists, renames and deletes groups of the caller only', async () => {
    const u = await s.user(false);
    const other = await s.user(false);
    expect((await s.call('POST', '/groups', { json: { name: 'x' } })).status).toBe(401);
    const g = await s.call('POST', '/groups', { key: u.key, json: { name: 'Mine' } });
    expect(g.status).toBe(200);
    expect(g.data).toMatchObject({ name: 'Mine', team_id: null });
    expect((await s.call('POST', '/groups', { key: u.key, json: { name: '' } })).status).toBe(422);
    const list = await s.call('GET', '/groups', { key: u.key });
    expect(list.data).toMatchObject({ total: 1, current_page: 1 });
    expect((await s.call('GET', '/groups', { key: other.key })).data.total).toBe(0);
    expect((await s.call('GET', `/groups/${g.data.id}`, { key: other.key })).status).toBe(404);
    expect((await s.call('PUT', `/groups/${g.data.id}`, { key: u.key, json: { name: 'Renamed' } })).data.name).toBe('Renamed');
    expect((await s.call('DELETE', `/groups/${g.data.id}`, { key: other.key })).status).toBe(404);
    expect((await s.call('DELETE', `/groups/${g.data.id}`, { key: u.key })).status).toBe(204);
    expect((await s.call('GET', `/groups/${g.data.id}`, { key: u.key })).status).toBe(404);
  });

  it("validates a token's group_id against the owner's groups and clears it when the group goes", async () => {
    const u = await s.user(false);
    const other = await s.user(false);
    const mine = (await s.call('POST', '/groups', { key: u.key, json: { name: 'g' } })).data;
    const theirs = (await s.call('POST', '/groups', { key: other.key, json: { name: 'g' } })).data;
    const t = await s.token({ group_id: mine.id }, u.key);
    expect(t.group_id).toBe(mine.id);
    const bad = await s.call('POST', '/token', { key: u.key, json: { group_id: theirs.id } });
    expect(bad.status).toBe(422);
    expect(bad.data.errors.group_id).toBeDefined();
    expect((await s.call('PUT', `/token/${t.uuid}`, { key: u.key, json: { group_id: theirs.id } })).status).toBe(422);
    await s.call('DELETE', `/groups/${mine.id}`, { key: u.key });
    expect((await s.call('GET', `/token/${t.uuid}`, { key: u.key })).data.group_id).toBeNull();
  });
});
