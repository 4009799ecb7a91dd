// A token whose request_limit is above the seed's 10,000 (MAX_REQUEST_LIMIT raised): its count
// and its CSV and HAR exports are exact, read from the store a page at a time (export.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleRequest } from '../../store/store.contract.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { EXPORT_PAGE } from './export.js';

const KEPT = 25_000;
let s: TestServer;
let key: string;
let token: { uuid: string };
const uuids: string[] = [];

beforeAll(async () => {
  s = await startTestServer({ MAX_REQUEST_LIMIT: '30000' });
  key = (await s.user(true)).key;
  token = { uuid: (await s.token({ request_limit: KEPT }, key)).uuid as string };
  const base = 1_700_000_000_000_000;
  const records = Array.from({ length: KEPT }, (_, i) => {
    const body = Buffer.from(`{"n":${i}}`);
    const r = sampleRequest(token.uuid, {
      uuid: randomUUID(),
      body,
      size: body.length,
      sorting: base + i,
      created_at: 1_700_000_000_000 + i,
      // A header only the last request has: the CSV still gets its column.
      headers: i === KEPT - 1 ? { 'content-type': ['application/json'], 'x-last': ['yes'] } : { 'content-type': ['application/json'] },
      type: i === 0 ? 'email' : 'web',
    });
    uuids.push(r.uuid);
    return { request: r, files: [] };
  });
  // The store's bulk path, as a migration writes them: 25,000 HTTP captures would take minutes.
  for (let i = 0; i < KEPT; i += 5_000) await s.services.store.transfer.write('requests', records.slice(i, i + 5_000));
}, 120_000);
afterAll(() => s.close());

describe('a token keeping 25,000 requests', () => {
  it('counts them exactly', async () => {
    const t = await s.call('GET', `/token/${token.uuid}`, { key });
    expect(t.data.request_limit).toBe(KEPT);
    expect(t.data.requests).toBe(KEPT);
    const list = await s.call('GET', `/token/${token.uuid}/requests?per_page=1`, { key });
    expect(list.data.total).toBe(KEPT);
  });

  it('exports every one of them to CSV, oldest first, with the columns of all of them', async () => {
    const r = await s.call('GET', `/token/${token.uuid}/requests/export`, { key });
    expect(r.status).toBe(200);
    const lines = r.text.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(KEPT + 1);
    const header = lines[0]!.split(',');
    expect(header).toContain('header.x-last');
    expect(lines.slice(1).map((l) => l.slice(0, 36))).toEqual(uuids);
    expect(lines.at(-1)).toContain(',yes');
  }, 60_000);

  it('exports per_page requests, across store pages, newest first', async () => {
    const n = EXPORT_PAGE * 2 + 7;
    const r = await s.call('GET', `/token/${token.uuid}/requests/export?sorting=newest&per_page=${n}`, { key });
    const lines = r.text.split('\r\n').slice(1, -1);
    expect(lines.map((l) => l.slice(0, 36))).toEqual(uuids.slice(-n).reverse());
  });

  it('exports a HAR archive of the HTTP ones, leaving out and counting the e-mail one', async () => {
    const n = EXPORT_PAGE + 3;
    const r = await s.call('GET', `/token/${token.uuid}/requests/export?format=har&per_page=${n}`, { key });
    expect(r.status).toBe(200);
    const har = JSON.parse(r.text) as { log: { version: string; entries: Array<{ _request_id: string }>; comment?: string } };
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.map((e) => e._request_id)).toEqual(uuids.slice(1, n));
    expect(har.log.comment).toMatch(/^1 e-mail or DNS capture/);
  });
});
