// One per_page rule on every paged list: 1..100 is served, anything else answers 422 with the field named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let pro: { id: number; key: string };
let lists: string[];

beforeAll(async () => {
  s = await startTestServer();
  pro = await s.user(true);
  const t = await s.token({}, pro.key);
  const sched = await s.call('POST', '/schedules', {
    key: pro.key,
    json: { name: 'p', interval: 'hourly', request_method: 'GET', request_url: `${s.url}/${t.uuid}`, timeout: 5 },
  });
  expect(sched.status).toBe(200);
  lists = [
    '/token',
    `/token/${t.uuid}/requests`,
    '/schedules',
    `/schedules/${sched.data.id}/logs`,
    '/groups',
    '/global-variables',
    '/templates',
    '/providers',
    // /databases needs a PostgreSQL server: core/http/databases/databases.test.ts checks it there.
  ];
});
afterAll(async () => s?.close());

describe('per_page on every list', () => {
  it('serves 100 and answers 101, 0 and 1000 with 422 naming per_page', async () => {
    for (const path of [...lists, '/users']) {
      const key = path === '/users' ? ADMIN_KEY : pro.key;
      const ok = await s.call('GET', `${path}?per_page=100`, { key });
      expect(ok.status, path).toBe(200);
      expect(ok.data.per_page, path).toBe(100);
      for (const bad of ['101', '0', '1000', 'many']) {
        const r = await s.call('GET', `${path}?per_page=${bad}`, { key });
        expect(r.status, `${path} per_page=${bad}`).toBe(422);
        expect(Object.keys(r.data.errors), path).toContain('per_page');
      }
    }
  });
});
