import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function tokenWith(bodies: Array<[string, string]>) {
  const t = await s.token();
  for (const [method, body] of bodies) await s.call(method, `/${t.uuid}`, { body: method === 'GET' ? undefined : body });
  return t;
}

describe('reading requests', () => {
  it('lists in the seed envelope, sorts both ways and refuses per_page over 100', async () => {
    const t = await tokenWith([
      ['POST', 'n1'],
      ['POST', 'n2'],
      ['POST', 'n3'],
    ]);
    const r = await s.call('GET', `/token/${t.uuid}/requests?per_page=2&page=1`);
    expect(r.data).toMatchObject({ total: 3, per_page: 2, current_page: 1, is_last_page: false, from: 1, to: 2 });
    expect(r.data.data.map((x: { content: string }) => x.content)).toEqual(['n1', 'n2']);
    const last = await s.call('GET', `/token/${t.uuid}/requests?per_page=2&page=2&sorting=newest`);
    expect(last.data).toMatchObject({ is_last_page: true, from: 3, to: 3 });
    expect(last.data.data[0].content).toBe('n1');
    expect((await s.call('GET', `/token/${t.uuid}/requests?per_page=1000`)).status).toBe(422);
  });

  it.each(['sorting=up', 'page=0', 'per_page=-1', 'date_from=yesterday', 'query=' + encodeURIComponent('method:(GET')])('refuses %s with 422', async (qs) => {
    const t = await s.token();
    const r = await s.call('GET', `/token/${t.uuid}/requests?${qs}`);
    expect(r.status).toBe(422);
    expect(typeof r.data.message).toBe('string');
  });

  it('names the position of a query syntax error', async () => {
    const t = await s.token();
    const r = await s.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent('method:GET AND (')}`);
    expect(r.status).toBe(422);
    expect(r.data.message).toMatch(/position \d+/);
  });

  it('filters with the search language and by date', async () => {
    const t = await tokenWith([
      ['PUT', 'alpha'],
      ['POST', 'beta'],
      ['POST', 'gamma delta'],
    ]);
    const q = async (query: string) => (await s.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent(query)}`)).data.data.map((r: { content: string }) => r.content);
    expect(await q('method:PUT')).toEqual(['alpha']);
    expect(await q('beta OR delta')).toEqual(['beta', 'gamma delta']);
    expect(await q('method:POST AND NOT content:beta')).toEqual(['gamma delta']);
    expect(await q('created_at:[* TO "2000-01-01 00:00:00"]')).toEqual([]);
    expect(await q('created_at:[now-1h TO *]')).toHaveLength(3);
    const future = await s.call('GET', `/token/${t.uuid}/requests?date_from=${encodeURIComponent('2999-01-01 00:00:00')}`);
    expect(future.data.total).toBe(0);
  });

  it('date_from and date_to include the whole second they name, in lists, exports and deletes', async () => {
    // Captured half a second into 03:04:05 and 03:04:06; created_at shows whole seconds.
    let now = Date.UTC(2024, 0, 2, 3, 4, 5, 500);
    const dated = await startTestServer({}, { clock: { now: () => now } });
    try {
      const t = await dated.token();
      await dated.call('POST', `/${t.uuid}`, { body: 'first' });
      now += 1000;
      await dated.call('POST', `/${t.uuid}`, { body: 'second' });
      const contents = async (qs: string) => (await dated.call('GET', `/token/${t.uuid}/requests?${qs}`)).data.data.map((r: { content: string }) => r.content);
      const first = (await dated.call('GET', `/token/${t.uuid}/requests`)).data.data[0];
      expect(first.created_at).toBe('2024-01-02 03:04:05');
      const to = `date_to=${encodeURIComponent(first.created_at)}`;
      expect(await contents(to)).toEqual(['first']);
      expect(await contents(`date_from=${encodeURIComponent(first.created_at)}&${to}`)).toEqual(['first']);
      expect(await contents(`date_from=${encodeURIComponent('2024-01-02 03:04:06')}`)).toEqual(['second']);
      // A minute or a day alone means all of it, as created_at ranges in the search language.
      expect(await contents(`date_to=${encodeURIComponent('2024-01-02 03:04')}`)).toEqual(['first', 'second']);
      expect(await contents('date_from=2024-01-02&date_to=2024-01-02')).toEqual(['first', 'second']);
      expect(await contents('date_to=2024-01-01')).toEqual([]);
      const csv = (await dated.call('GET', `/token/${t.uuid}/requests/export?${to}`)).text;
      expect(csv).toContain('first');
      expect(csv).not.toContain('second');
      expect((await dated.call('DELETE', `/token/${t.uuid}/request?${to}`)).status).toBe(204);
      expect(await contents('')).toEqual(['second']);
    } finally {
      await dated.close();
    }
  });

  it('gets one, latest, raw; 404 for unknown ones', async () => {
    const t = await tokenWith([
      ['POST', 'first'],
      ['POST', 'second'],
    ]);
    const latest = await s.call('GET', `/token/${t.uuid}/request/latest`);
    expect(latest.data.content).toBe('second');
    const one = await s.call('GET', `/token/${t.uuid}/request/${latest.data.uuid}`);
    expect(one.data.uuid).toBe(latest.data.uuid);
    expect((await s.call('GET', `/token/${t.uuid}/request/${latest.data.uuid}/raw`)).text).toBe('second');
    expect((await s.call('GET', `/token/${t.uuid}/request/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    const empty = await s.token();
    expect((await s.call('GET', `/token/${empty.uuid}/request/latest`)).status).toBe(404);
  });

  it('a request of another token is not found through this one', async () => {
    const a = await tokenWith([['POST', 'a']]);
    const b = await s.token();
    const id = (await s.call('GET', `/token/${a.uuid}/request/latest`)).data.uuid;
    expect((await s.call('GET', `/token/${b.uuid}/request/${id}`)).status).toBe(404);
    expect((await s.call('DELETE', `/token/${b.uuid}/request/${id}`)).status).toBe(404);
    expect((await s.call('GET', `/token/${a.uuid}/request/${id}`)).status).toBe(200);
  });

  it('deletes one, the matching ones, and all', async () => {
    const t = await tokenWith([
      ['PUT', 'p'],
      ['POST', 'q'],
      ['POST', 'r'],
      ['GET', ''],
    ]);
    const first = (await s.call('GET', `/token/${t.uuid}/requests`)).data.data[0];
    expect((await s.call('DELETE', `/token/${t.uuid}/request/${first.uuid}`)).status).toBe(204);
    expect((await s.call('DELETE', `/token/${t.uuid}/request?query=method:GET`)).status).toBe(204);
    expect((await s.call('GET', `/token/${t.uuid}/requests`)).data.data.map((r: { content: string }) => r.content)).toEqual(['q', 'r']);
    expect((await s.call('DELETE', `/token/${t.uuid}/request?query=${encodeURIComponent('((')}`)).status).toBe(422);
    expect((await s.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(2);
    expect((await s.call('DELETE', `/token/${t.uuid}/request`)).status).toBe(204);
    expect((await s.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(0);
  });

  it('sets a note of up to 10,000 characters', async () => {
    const t = await tokenWith([['POST', 'x']]);
    const id = (await s.call('GET', `/token/${t.uuid}/request/latest`)).data.uuid;
    const r = await s.call('PUT', `/token/${t.uuid}/request/${id}/note`, { json: { note: 'looked at' } });
    expect(r.data.note).toBe('looked at');
    expect((await s.call('PUT', `/token/${t.uuid}/requests/${id}`, { json: { note: 'x'.repeat(10_001) } })).status).toBe(422);
    expect((await s.call('GET', `/token/${t.uuid}/request/${id}`)).data.note).toBe('looked at');
  });
});
