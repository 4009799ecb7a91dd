import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ MAX_QUERY_LENGTH: '200', MAX_HEADER_BYTES: '2048' });
});
afterAll(() => s.close());

describe('uploaded files', () => {
  it('parses multipart fields and files; downloads return the bytes with a safe disposition', async () => {
    const t = await s.token();
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
    const form = new FormData();
    form.append('title', 'hello');
    form.append('tag', 'a');
    form.append('tag', 'b');
    form.append('upload', new Blob([bytes], { type: 'image/png' }), 'pic "1"\r\n.png');
    await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: form });
    const q = (await s.call('GET', `/token/${t.uuid}/request/latest`)).data;
    expect(q.request).toEqual({ title: 'hello', tag: ['a', 'b'] });
    expect(q.files).toHaveLength(1);
    expect(q.files[0]).toMatchObject({ name: 'upload', size: 300, content_type: 'image/png' });
    const d = await s.call('GET', `/token/${t.uuid}/request/${q.uuid}/download/${q.files[0].id}`);
    expect(d.status).toBe(200);
    expect(d.buf.equals(bytes)).toBe(true);
    expect(d.headers.get('content-type')).toBe('image/png');
    const disposition = d.headers.get('content-disposition')!;
    expect(disposition).toMatch(/^attachment; filename="[^"\r\n]*"; filename\*=UTF-8''/);
    // The raw body is kept as sent.
    const raw = await s.call('GET', `/token/${t.uuid}/request/${q.uuid}/raw`);
    expect(raw.buf.includes(bytes)).toBe(true);
    expect((await s.call('GET', `/token/${t.uuid}/request/${q.uuid}/download/nope`)).status).toBe(404);
  });

  it('captures a malformed multipart body whole, with no fields', async () => {
    const t = await s.token();
    const r = await s.call('POST', `/${t.uuid}`, { body: '--x\r\nbroken', headers: { 'Content-Type': 'multipart/form-data; boundary=x' } });
    expect(r.status).toBe(200);
    const q = (await s.call('GET', `/token/${t.uuid}/request/latest`)).data;
    expect(q.content).toBe('--x\r\nbroken');
    expect(q.files).toEqual([]);
  });
});

describe('CSV export', () => {
  it('exports the matching requests with header, query and form columns', async () => {
    const t = await s.token();
    await s.call('POST', `/${t.uuid}?a=1&b=x&b=y`, { body: 'x=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Tag': 'first' } });
    await s.call('PUT', `/${t.uuid}`, { body: '=cmd|"evil"', headers: { 'X-Tag': 'second' } });
    const all = await s.call('GET', `/token/${t.uuid}/requests/export`);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = all.text.trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('header.x-tag');
    expect(lines[0]).toContain('query.a');
    const columns = lines[0]!.split(',');
    const first = lines[1]!.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''));
    expect(first[columns.indexOf('query.b')]).toBe('"x, y"'); // every value of a repeated key
    expect(lines[0]).toContain('request.x');
    expect(lines[2]).toContain(`"'=cmd|""evil"""`);
    const put = await s.call('GET', `/token/${t.uuid}/requests/export?query=method:PUT`);
    expect(put.text.trim().split('\r\n')).toHaveLength(2);
    expect((await s.call('GET', `/token/${t.uuid}/requests/export?query=${encodeURIComponent('(')}`)).status).toBe(422);
  });
});

describe('request size limits', () => {
  it('refuses an over-long URL with 414 and oversized headers with 431, as JSON', async () => {
    const t = await s.token();
    const long = await s.call('GET', `/${t.uuid}?q=${'a'.repeat(300)}`);
    expect(long.status).toBe(414);
    expect(long.data.message).toMatch(/URL longer than 200/);
    const big = await s.call('GET', `/${t.uuid}`, { headers: { 'X-Big': 'b'.repeat(4000) } });
    expect(big.status).toBe(431);
    expect(big.data.message).toMatch(/headers larger/);
    expect((await s.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(0);
  });
});

describe('export rate limit', () => {
  it('allows 3 exports of a token a minute, then 429 with Retry-After until the next minute; other tokens are unaffected', async () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 10);
    const limited = await startTestServer({}, { clock: { now: () => now } });
    try {
      const t = await limited.token();
      await limited.call('POST', `/${t.uuid}`, { body: 'x' });
      // Bad input is answered before counting.
      expect((await limited.call('GET', `/token/${t.uuid}/requests/export?format=xml`)).status).toBe(422);
      for (const format of ['csv', 'har', 'csv']) {
        expect((await limited.call('GET', `/token/${t.uuid}/requests/export?format=${format}`)).status).toBe(200);
      }
      const fourth = await limited.call('GET', `/token/${t.uuid}/requests/export`);
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('50');
      expect(fourth.data.message).toMatch(/at most 3 per minute/);
      const other = await limited.token();
      expect((await limited.call('GET', `/token/${other.uuid}/requests/export`)).status).toBe(200);
      now += 50_000;
      const next = await limited.call('GET', `/token/${t.uuid}/requests/export`);
      expect(next.status).toBe(200);
      expect(next.text.trim().split('\r\n')).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });
});
