import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ MAX_BODY_BYTES: String(64 * 1024), TRUSTED_PROXIES: '127.0.0.1' });
});
afterAll(() => s.close());

const list = async (uuid: string, qs = '') => (await s.call('GET', `/token/${uuid}/requests${qs}`)).data;

describe('capture URLs', () => {
  it('stores every field of a captured request and answers with the default response', async () => {
    const t = await s.token({ default_status: 201, default_content: 'made', default_content_type: 'text/plain' });
    const r = await s.call('PATCH', `/${t.uuid}/a/b?x=1&y=two`, {
      body: 'payload',
      headers: { 'Content-Type': 'text/plain', 'X-Multi': 'v', 'User-Agent': 'ua/1', 'X-Forwarded-For': '203.0.113.9' },
    });
    expect(r.status).toBe(201);
    expect(r.text).toBe('made');
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    const q = (await list(t.uuid)).data[0];
    expect(q).toMatchObject({
      type: 'web',
      token_id: t.uuid,
      team_id: null,
      method: 'PATCH',
      content: 'payload',
      size: 7,
      user_agent: 'ua/1',
      query: { x: '1', y: 'two' },
      hostname: '127.0.0.1',
      ip: '203.0.113.9',
      files: [],
      custom_action_output: [],
      custom_action_errors: [],
    });
    expect(q.headers['x-multi']).toEqual(['v']);
    expect(q.url).toBe(`${s.url}/${t.uuid}/a/b?x=1&y=two`);
    expect(typeof q.time).toBe('number');
    expect(r.headers.get('x-request-id')).toBe(q.uuid);
  });

  it('does not believe X-Forwarded-For from an untrusted peer', async () => {
    const other = await startTestServer();
    try {
      const t = await other.token();
      await other.call('GET', `/${t.uuid}`, { headers: { 'X-Forwarded-For': '203.0.113.9' } });
      const q = (await other.call('GET', `/token/${t.uuid}/requests`)).data.data[0];
      expect(q.ip).toBe('127.0.0.1');
    } finally {
      await other.close();
    }
  });

  it('uses a status path segment, and the alias in place of the ID', async () => {
    const t = await s.token();
    expect((await s.call('GET', `/${t.uuid}/418`)).status).toBe(418);
    expect((await s.call('GET', `/${t.uuid}/999`)).status).toBe(200);
    expect((await s.call('GET', `/${t.uuid}/201/deeper/path?x=1`)).status).toBe(201);
    expect((await s.call('GET', `/${t.uuid}/202?x=1`)).status).toBe(202);
    expect((await s.call('GET', `/${t.uuid}/2010`)).status).toBe(200);
    expect((await s.call('GET', `/${t.uuid}/x/201`)).status).toBe(200);
    const p = await s.user(true);
    const a = await s.token({ alias: 'cap-alias' }, p.key);
    expect((await s.call('POST', '/cap-alias/x', { body: 'via alias' })).status).toBe(200);
    // A percent-encoded segment is decoded before the lookup; a malformed one is an unknown token.
    expect((await s.call('POST', '/cap%2Dalias', { body: 'encoded' })).status).toBe(200);
    expect((await s.call('POST', '/cap%E0%A4%A', { body: 'malformed' })).status).toBe(404);
    const l = await s.call('GET', `/token/${a.uuid}/requests?sorting=oldest`, { key: p.key });
    expect(l.data.data.map((r: { content: string }) => r.content)).toEqual(['via alias', 'encoded']);
  });

  it('keeps a binary body byte for byte and replays it with its content type', async () => {
    const t = await s.token();
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i));
    await s.call('POST', `/${t.uuid}`, { body: bytes, headers: { 'Content-Type': 'image/x-test' } });
    const raw = await s.call('GET', `/token/${t.uuid}/request/latest/raw`);
    expect(raw.buf.equals(bytes)).toBe(true);
    expect(raw.headers.get('content-type')).toBe('image/x-test');
  });

  it('refuses a body over MAX_BODY_BYTES with 413 and stores nothing', async () => {
    const t = await s.token();
    const r = await s.call('POST', `/${t.uuid}`, { body: Buffer.alloc(64 * 1024 + 1, 97) });
    expect(r.status).toBe(413);
    expect(r.data.message).toMatch(/larger than/);
    expect((await list(t.uuid)).total).toBe(0);
  });

  it('fills the request object from a urlencoded form', async () => {
    const t = await s.token();
    await s.call('POST', `/${t.uuid}`, { body: 'a=1&b=hello+world', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect((await list(t.uuid)).data[0].request).toEqual({ a: '1', b: 'hello world' });
  });

  it('answers unknown and expired tokens with a JSON 404', async () => {
    const r = await s.call('GET', '/00000000-0000-4000-8000-000000000000');
    expect(r.status).toBe(404);
    expect(r.data.message).toBe('Token not found');
    expect((await s.call('GET', '/%E0%A4%A')).status).toBe(404);
  });

  it('adds CORS headers and answers preflights when cors is on', async () => {
    const t = await s.token({ cors: true });
    const pre = await fetch(`${s.url}/${t.uuid}`, { method: 'OPTIONS', headers: { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-a' } });
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://a.test');
    expect(pre.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(pre.headers.get('access-control-allow-headers')).toBe('x-a');
    const plain = await s.token();
    const no = await fetch(`${s.url}/${plain.uuid}`, { headers: { Origin: 'https://a.test' } });
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('request_limit trims the oldest and 0 stores nothing while still answering', async () => {
    const t = await s.token({ request_limit: 2 });
    for (const b of ['a', 'b', 'c']) await s.call('POST', `/${t.uuid}`, { body: b });
    expect((await list(t.uuid)).data.map((r: { content: string }) => r.content)).toEqual(['b', 'c']);
    const z = await s.token({ request_limit: 0, default_content: 'ok' });
    expect((await s.call('POST', `/${z.uuid}`, { body: 'x' })).text).toBe('ok');
    expect((await list(z.uuid)).total).toBe(0);
  });

  it('keeps the order of captures sent at once', async () => {
    const t = await s.token();
    // Sequential sends: each is committed before it is answered, so the order is the send order.
    for (let i = 0; i < 20; i++) await s.call('POST', `/${t.uuid}`, { body: String(i) });
    const l = await list(t.uuid, '?per_page=100');
    expect(l.data.map((r: { content: string }) => r.content)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    const parallel = await s.token();
    await Promise.all(Array.from({ length: 50 }, (_, i) => s.call('POST', `/${parallel.uuid}`, { body: String(i) })));
    expect((await list(parallel.uuid)).total).toBe(50);
  });

  it('limits capture URLs of tokens with a timeout to 100/timeout a minute', async () => {
    // Ten seconds into a minute, on a clock that stays there: the window filled is the one the capture counts in.
    const now = Date.UTC(2024, 0, 2, 3, 4, 10);
    const timed = await startTestServer({}, { clock: { now: () => now } });
    try {
      const t = await timed.token({ timeout: 30 });
      // Three requests a minute at timeout 30: fill the window without waiting 30 s each.
      for (let i = 0; i < 3; i++) await timed.services.store.counters.hit(`capture-timeout:${t.uuid}`, now - (now % 60_000), 120_000);
      const r = await timed.call('GET', `/${t.uuid}`);
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('50');
      expect((await timed.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(0);
    } finally {
      await timed.close();
    }
  });

  it('waits timeout seconds before answering', async () => {
    const t = await s.token({ timeout: 1 });
    const t0 = Date.now();
    await s.call('GET', `/${t.uuid}`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it('HEAD gets headers without a body', async () => {
    const t = await s.token({ default_content: 'body' });
    const r = await s.call('HEAD', `/${t.uuid}`);
    expect(r.status).toBe(200);
    expect(r.buf.length).toBe(0);
  });
});
