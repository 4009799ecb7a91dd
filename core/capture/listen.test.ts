import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { createSqliteStore } from '../store/sqlite/index.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** Waits until the token has a stored request and returns its ID (what the CLI learns over realtime). */
async function nextRequestId(uuid: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const r = await s.call('GET', `/token/${uuid}/request/latest`);
    if (r.status === 200) return r.data.uuid;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error('no request arrived');
}

describe('listen and set-response', () => {
  it('answers the waiting caller with the response set through the API', async () => {
    const t = await s.token({ listen: 5, default_content: 'default' });
    const pending = s.call('POST', `/${t.uuid}/hook`, { body: 'ping' });
    const id = await nextRequestId(t.uuid);
    const set = await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, {
      json: { status: 202, content: Buffer.from('from the target').toString('base64'), headers: { 'Content-Type': ['text/plain'], 'X-Target': ['yes'], Connection: ['close'], 'Transfer-Encoding': ['chunked'] } },
    });
    expect(set.status).toBe(200);
    expect(set.data).toEqual({ status: true });
    const r = await pending;
    expect(r.status).toBe(202);
    expect(r.text).toBe('from the target');
    expect(r.headers.get('x-target')).toBe('yes');
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(r.headers.get('transfer-encoding')).toBeNull();
  });

  it('accepts the plural path and plain string header values', async () => {
    const t = await s.token({ listen: 5 });
    const pending = s.call('GET', `/${t.uuid}`);
    const id = await nextRequestId(t.uuid);
    expect((await s.call('PUT', `/token/${t.uuid}/requests/${id}/response`, { json: { content: '', headers: { 'X-A': 'b' } } })).status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.headers.get('x-a')).toBe('b');
  });

  it('falls back to the default response after the wait and refuses a late response', async () => {
    const t = await s.token({ listen: 1, default_content: 'default' });
    const t0 = Date.now();
    const r = await s.call('GET', `/${t.uuid}`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(r.text).toBe('default');
    const id = (await s.call('GET', `/token/${t.uuid}/request/latest`)).data.uuid;
    const late = await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { status: 200, content: '' } });
    expect(late.status).toBe(409);
    expect(late.data.message).toMatch(/waiting/);
  });

  it('refuses a second response for the same capture, and bad bodies', async () => {
    const t = await s.token({ listen: 3 });
    const pending = s.call('GET', `/${t.uuid}`);
    const id = await nextRequestId(t.uuid);
    expect((await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { status: 'abc' } })).status).toBe(422);
    expect((await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { status: 700 } })).status).toBe(422);
    expect((await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { status: 201 } })).status).toBe(200);
    expect((await s.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { status: 202 } })).status).toBe(409);
    expect((await pending).status).toBe(201);
  });

  it('refuses a set-response over 10 MiB with 413', async () => {
    const t = await s.token({ listen: 1 });
    const big = Buffer.alloc(10 * 1024 * 1024 + 10).toString('base64');
    const r = await s.call('PUT', `/token/${t.uuid}/request/00000000-0000-4000-8000-000000000000/response`, { json: { content: big } });
    expect(r.status).toBe(413);
  });
});

describe('listen, answered the moment the capture is stored', () => {
  it('accepts a set-response sent as soon as the capture can be listed (its wait is open before it is stored)', async () => {
    // A client that lists the capture (or hears of it over realtime) and answers at once: here the
    // answer is given right after the store took the capture. Opened after the store, the wait
    // was not there yet and the answer got a 409 (with two processes on MongoDB, in CI).
    const store = createSqliteStore(':memory:');
    const answered: boolean[] = [];
    const insert = store.requests.insert.bind(store.requests);
    store.requests.insert = async (record, limit, files) => {
      await insert(record, limit, files);
      const content = Buffer.from('set at once').toString('base64');
      answered.push(await store.listeners.respond(record.token_id, record.uuid, { status: 203, content, headers: {} }, Date.now()));
    };
    const server = await startTestServer({}, { store });
    try {
      const t = await server.token({ listen: 5 });
      const r = await server.call('POST', `/${t.uuid}`, { body: 'ping' });
      expect(answered).toEqual([true]);
      expect(r.status).toBe(203);
      expect(r.text).toBe('set at once');
    } finally {
      await server.close();
    }
  });
});
