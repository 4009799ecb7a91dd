// Replay end to end through the running service: a token's actions run again on its stored
// requests (all, or those a query matches) as a job whose progress and summary the API shows, the
// new output replacing the stored one; forwarding the requests to another URL, in order; cancel;
// and bad input answered 4xx with nothing changed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let alice: { id: number; key: string };

/** Polls the replay until it has finished (done, cancelled or failed). */
async function finished(tokenId: string, id: string, key: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await s.call('GET', `/token/${tokenId}/replays/${id}`, { key });
    expect(r.status).toBe(200);
    if (['done', 'cancelled', 'failed'].includes(r.data.status)) return r.data;
    if (Date.now() > deadline) throw new Error(`replay still ${r.data.status}: ${JSON.stringify(r.data)}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function capture(tokenId: string, method: string, path: string, body?: string) {
  const res = await fetch(`${s.url}/${tokenId}${path}`, { method, body });
  expect(res.status).toBeLessThan(500);
  await res.arrayBuffer();
}

beforeAll(async () => {
  s = await startTestServer({ SCHEDULER_POLL_MS: '100' });
  alice = await s.user(true);
});
afterAll(async () => {
  await s?.close();
});

describe('replay', () => {
  it("runs the token's changed actions again on the requests a query matches; their output replaces the stored one", async () => {
    const token = await s.token({ actions: true }, alice.key);
    const added = await s.call('POST', `/token/${token.uuid}/actions`, { key: alice.key, json: { order: 1, type: 'log', parameters: { text: 'first version' } } });
    expect(added.status).toBe(200);
    for (let i = 0; i < 5; i++) await capture(token.uuid, i % 2 ? 'GET' : 'POST', `/n${i}`, i % 2 ? undefined : `body ${i}`);
    const before = await s.call('GET', `/token/${token.uuid}/requests?sorting=oldest`, { key: alice.key });
    expect(before.data.total).toBe(5);
    expect(before.data.data[0].custom_action_output.join('\n')).toContain('first version');

    const actionId = added.data.uuid ?? added.data.id;
    expect((await s.call('PUT', `/token/${token.uuid}/actions/${actionId}`, { key: alice.key, json: { order: 1, type: 'log', parameters: { text: 'second version' } } })).status).toBe(200);
    const started = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json: { query: 'method:POST' } });
    expect(started.status).toBe(202);
    expect(started.data).toMatchObject({ mode: 'actions', status: 'queued', total: 3, query: 'method:POST', ordered: false, sorting: 'oldest', limit: 100000 });
    const done = await finished(token.uuid, started.data.id, alice.key);
    expect(done).toMatchObject({ status: 'done', total: 3, processed: 3, ran: 3, failed: 0, skipped: 0, progress: 100, error: null });
    expect(done.finished_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    const after = await s.call('GET', `/token/${token.uuid}/requests?sorting=oldest`, { key: alice.key });
    for (const r of after.data.data) {
      const out = r.custom_action_output.join('\n');
      if (r.method === 'POST') {
        expect(out).toContain('second version');
        expect(out).not.toContain('first version');
      } else {
        expect(out).toContain('first version');
      }
    }
    // Listed newest first.
    const list = await s.call('GET', `/token/${token.uuid}/replays`, { key: alice.key });
    expect(list.data.data[0].id).toBe(started.data.id);
  });

  it('runs queued actions queued; their output is added after the inline output', async () => {
    const token = await s.token({ actions: true }, alice.key);
    expect((await s.call('POST', `/token/${token.uuid}/actions`, { key: alice.key, json: { order: 1, type: 'log', parameters: { text: 'inline line' } } })).status).toBe(200);
    expect((await s.call('POST', `/token/${token.uuid}/actions`, { key: alice.key, json: { order: 2, type: 'log', queue: true, parameters: { text: 'queued line' } } })).status).toBe(200);
    await capture(token.uuid, 'POST', '/q', 'q');
    const output = async () => (await s.call('GET', `/token/${token.uuid}/request/latest`, { key: alice.key })).data.custom_action_output.join('\n') as string;
    await expect.poll(output, { timeout: 10_000 }).toContain('queued line');
    const started = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json: {} });
    expect((await finished(token.uuid, started.data.id, alice.key)).ran).toBe(1);
    await expect.poll(async () => ((await output()).match(/queued line/g) ?? []).length, { timeout: 10_000 }).toBe(1);
    const out = await output();
    expect(out.match(/inline line/g)).toHaveLength(1);
    expect(out.indexOf('inline line')).toBeLessThan(out.indexOf('queued line'));
    // Replaced, not added to: each line once, though the actions ran twice.
    await new Promise((done) => setTimeout(done, 300));
    expect(((await output()).match(/queued line/g) ?? []).length).toBe(1);
  });

  it('counts a request whose actions report errors as failed and logs why', async () => {
    const token = await s.token({ actions: true }, alice.key);
    await capture(token.uuid, 'POST', '/a', '{"x":1}');
    await capture(token.uuid, 'POST', '/b', 'not json');
    expect((await s.call('POST', `/token/${token.uuid}/actions`, { key: alice.key, json: { order: 1, type: 'validate_json', parameters: { source: '$request.content$' } } })).status).toBe(200);
    const started = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json: { ordered: true } });
    expect(started.status).toBe(202);
    const done = await finished(token.uuid, started.data.id, alice.key);
    expect(done).toMatchObject({ status: 'done', processed: 2, ran: 1, failed: 1 });
    const second = (await s.call('GET', `/token/${token.uuid}/requests?sorting=oldest`, { key: alice.key })).data.data[1];
    expect(done.log).toEqual([{ request_id: second.uuid, outcome: 'failed', message: expect.stringMatching(/^1 action error\(s\)/) }]);
    expect(second.custom_action_errors.length).toBe(1);
  });

  it('forwards the requests to a URL one at a time in order (newest first when asked)', async () => {
    const token = await s.token({}, alice.key);
    for (let i = 0; i < 6; i++) await capture(token.uuid, 'POST', `/f${i}`, `payload ${i}`);
    const got: string[] = [];
    const target = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push(`${req.method} ${Buffer.concat(chunks).toString()}`);
        // Later requests answered slower: out-of-order delivery would show.
        setTimeout(() => res.end('ok'), got.length === 1 ? 60 : 1);
      });
    });
    await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/in`;
      const started = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json: { mode: 'forward', url, method: 'put', ordered: true, sorting: 'newest', limit: 4 } });
      expect(started.status).toBe(202);
      expect(started.data).toMatchObject({ mode: 'forward', url, method: 'PUT', total: 4, ordered: true, sorting: 'newest' });
      const done = await finished(token.uuid, started.data.id, alice.key);
      expect(done).toMatchObject({ status: 'done', processed: 4, ran: 4, failed: 0 });
      expect(got).toEqual(['PUT payload 5', 'PUT payload 4', 'PUT payload 3', 'PUT payload 2']);
    } finally {
      await new Promise((done) => target.close(done));
    }
  });

  it('counts target answers of 400 and more as failed, and cancels a running replay', async () => {
    const token = await s.token({}, alice.key);
    for (let i = 0; i < 40; i++) await capture(token.uuid, 'POST', `/c${i}`, `c ${i}`);
    let seen = 0;
    const target = http.createServer((req, res) => {
      req.resume();
      seen++;
      res.statusCode = seen === 1 ? 500 : 200;
      setTimeout(() => res.end(), 50);
    });
    await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/slow`;
      const started = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json: { mode: 'forward', url, ordered: true } });
      expect(started.status).toBe(202);
      const deadline = Date.now() + 10_000;
      while (seen < 3 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      const cancelled = await s.call('POST', `/token/${token.uuid}/replays/${started.data.id}/cancel`, { key: alice.key });
      expect(cancelled.status).toBe(200);
      expect(cancelled.data.cancel_requested).toBe(true);
      const end = await finished(token.uuid, started.data.id, alice.key);
      expect(end.status).toBe('cancelled');
      expect(end.processed).toBeLessThan(40);
      expect(end.failed).toBe(1);
      expect(end.log[0]).toMatchObject({ outcome: 'failed', message: 'The target answered HTTP 500' });
      const seenAtEnd = seen;
      await new Promise((done) => setTimeout(done, 300));
      expect(seen).toBe(seenAtEnd);
      // A finished replay is answered as it is.
      expect((await s.call('POST', `/token/${token.uuid}/replays/${started.data.id}/cancel`, { key: alice.key })).data.status).toBe('cancelled');
    } finally {
      await new Promise((done) => target.close(done));
    }
  });

  it('fails the whole replay when the outbound policy refuses the URL', async () => {
    const token = await s.token({}, alice.key);
    await capture(token.uuid, 'POST', '/m', 'x');
    const started = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json: { mode: 'forward', url: 'http://169.254.169.254/latest/meta-data' } });
    expect(started.status).toBe(202);
    const end = await finished(token.uuid, started.data.id, alice.key);
    expect(end.status).toBe('failed');
    expect(end.error).toMatch(/url/i);
  });

  it('answers bad input with 4xx and changes nothing', async () => {
    const token = await s.token({}, alice.key);
    await capture(token.uuid, 'POST', '/z', 'z');
    const bad = async (json: unknown, status = 422) => {
      const r = await s.call('POST', `/token/${token.uuid}/replays`, { key: alice.key, json });
      expect(r.status).toBe(status);
      expect(typeof r.data.message).toBe('string');
      return r.data;
    };
    expect((await bad({})).errors.mode).toBeDefined(); // no actions to replay
    expect((await bad({ mode: 'forward' })).errors.url).toBeDefined();
    expect((await bad({ mode: 'forward', url: 'ftp://example.test/x' })).errors.url).toBeDefined();
    expect((await bad({ mode: 'forward', url: 'http://127.0.0.1:9/', query: 'method:(' })).errors.query).toBeDefined();
    expect((await bad({ mode: 'forward', url: 'http://127.0.0.1:9/', limit: 100001 })).errors.limit).toBeDefined();
    expect((await bad({ mode: 'sideways' })).errors.mode).toBeDefined();
    expect((await s.call('GET', `/token/${token.uuid}/replays`, { key: alice.key })).data.data).toEqual([]);
    expect((await s.call('GET', `/token/${token.uuid}/replays/00000000-0000-4000-8000-000000000000`, { key: alice.key })).status).toBe(404);
    expect((await s.call('POST', `/token/${token.uuid}/replays/nope/cancel`, { key: alice.key })).status).toBe(404);
    const other = await s.user(false);
    expect((await s.call('POST', `/token/${token.uuid}/replays`, { key: other.key, json: { mode: 'forward', url: 'http://127.0.0.1:9/' } })).status).toBeGreaterThanOrEqual(401);
    expect((await s.call('GET', `/token/${token.uuid}/requests`, { key: alice.key })).data.total).toBe(1);
  });

  it('is described in /openapi.json', async () => {
    const doc = (await s.call('GET', '/openapi.json')).data;
    expect(doc.paths['/token/{token_id}/replays'].post.requestBody).toBeDefined();
    expect(doc.paths['/token/{token_id}/replays/{replay_id}/cancel'].post).toBeDefined();
  });
});
