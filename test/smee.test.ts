// The smee.io channel (GET /token/:token/smee) with the unchanged smee-client forwarding to a local
// server, and the stream itself: smee.io's events, resuming with Last-Event-ID within its bounds,
// and the live stream's access rules (share link in the query string, revocation).
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import SmeeClient from 'smee-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMEE_REPLAY_MAX, SMEE_REPLAY_WINDOW_MS } from '../core/http/realtime/smee.js';
import { createRealtimeModule } from '../core/realtime/module.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { openSse, type SseClient } from './helpers/sse.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: TestServer;
let target: http.Server;
let targetUrl: string;
const received: Received[] = [];
const open: SseClient[] = [];
let now = Date.UTC(2026, 0, 5, 10, 0, 0);
const quiet = { info: () => {}, error: () => {} };

async function sse(path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const c = await openSse(server.url + path, headers);
  open.push(c);
  return c;
}

async function deliver(ref: string, path: string, body: string, headers: Record<string, string>) {
  const r = await server.call('POST', `/${ref}${path}`, { body, headers });
  expect(r.status).toBe(200);
  return r.headers.get('x-request-id')!;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

// A real GitHub push delivery (the @octokit/webhooks-examples data, read as data: no types).
const webhooks = createRequire(import.meta.url)('@octokit/webhooks-examples') as Array<{ name: string; examples: unknown[] }>;
const pushExample = webhooks.find((w) => w.name === 'push')!.examples[0]!;

beforeAll(async () => {
  server = await startTestServer({}, { clock: { now: () => now }, modules: [createRealtimeModule({ sse: { heartbeatMs: 100 } })] });
  target = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(202).end('ok');
    });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/webhook`;
});

afterAll(async () => {
  for (const c of open) c.close();
  await server?.close();
  await new Promise((r) => target?.close(r));
});

describe('smee-client forwards through the smee channel', () => {
  it('delivers a GitHub JSON delivery: body, headers and query intact, once; the capture is stored as usual', async () => {
    const token = await server.token();
    const client = new SmeeClient({ source: `${server.url}/token/${token.uuid}/smee`, target: targetUrl, logger: quiet });
    await client.start();
    try {
      const body = JSON.stringify(pushExample);
      const delivery = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
      const id = await deliver(token.uuid, '/github', body, {
        'Content-Type': 'application/json',
        'X-GitHub-Event': 'push',
        'X-GitHub-Delivery': delivery,
        'User-Agent': 'GitHub-Hookshot/044aadd',
      });
      await deliver(token.uuid, '?ref=main&n=2', '{"second": true}', { 'Content-Type': 'application/json', 'X-GitHub-Event': 'ping' });
      await until(() => received.length >= 2);

      const [first, second] = received.splice(0);
      expect(first!.method).toBe('POST');
      expect(JSON.parse(first!.body)).toEqual(pushExample);
      expect(first!.headers['x-github-event']).toBe('push');
      expect(first!.headers['x-github-delivery']).toBe(delivery);
      expect(first!.headers['user-agent']).toBe('GitHub-Hookshot/044aadd');
      expect(first!.headers['content-type']).toBe('application/json');
      expect(new URL(second!.url, targetUrl).searchParams.get('ref')).toBe('main');
      expect(new URL(second!.url, targetUrl).searchParams.get('n')).toBe('2');
      // smee re-serialises JSON bodies (docs/smee.md): the value arrives, not the bytes.
      expect(second!.body).toBe('{"second":true}');

      const stored = await server.call('GET', `/token/${token.uuid}/request/${id}`);
      expect(stored.status).toBe(200);
      expect(stored.data.content).toBe(body);
      expect(stored.data.headers['x-github-delivery']).toEqual([delivery]);
      // Forwarded once: nothing more arrives.
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toEqual([]);
    } finally {
      await client.stop();
    }
  });

  it("serves the channel by the token's alias too, to its owner's key in the query string", async () => {
    const owner = await server.user(true);
    const token = await server.token({ alias: 'smee-alias' }, owner.key);
    const client = new SmeeClient({ source: `${server.url}/token/smee-alias/smee?api_key=${owner.key}`, target: targetUrl, logger: quiet });
    await client.start();
    try {
      await deliver(token.uuid, '', '{"via":"alias"}', { 'Content-Type': 'application/json' });
      await until(() => received.length >= 1);
      expect(JSON.parse(received.splice(0)[0]!.body)).toEqual({ via: 'alias' });
    } finally {
      await client.stop();
    }
  });
});

describe('the smee.io stream', () => {
  it("sends ready, then one unnamed event per capture in smee.io's shape with the sorting key as id, and pings", async () => {
    const token = await server.token();
    const s = await sse(`/token/${token.uuid}/smee`);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ready = await s.waitFor((e) => e.event === 'ready');
    expect(ready.json).toEqual({});
    expect(ready.id).toBeUndefined();

    const id = await deliver(token.uuid, '/x?a=1&b=two', '{"n": [1, 2]}', { 'Content-Type': 'application/json; charset=utf-8', 'X-Multi': 'one' });
    await deliver(token.uuid, '', 'plain text, not JSON', { 'Content-Type': 'text/plain' });
    const [json, text] = await s.waitForCount((e) => e.event === 'message', 2);
    const api = (await server.call('GET', `/token/${token.uuid}/request/${id}`)).data;
    expect(json!.id).toBe(String(api.sorting));
    expect(json!.json).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-multi': 'one', body: { n: [1, 2] }, query: { a: '1', b: 'two' }, timestamp: now });
    for (const [name, value] of Object.entries(json!.json)) if (!['body', 'query', 'timestamp'].includes(name)) expect(typeof value, name).toBe('string');
    expect(text!.json.body).toBe('plain text, not JSON');
    expect(text!.json.query).toEqual({});

    await s.waitFor((e) => e.event === 'ping');
    expect(s.events.find((e) => e.event === 'ping')!.id).toBeUndefined();
    // Deletions and settings are not smee's: nothing but captures, ready and pings.
    expect((await server.call('PUT', `/token/${token.uuid}`, { json: { default_status: 201 } })).status).toBe(200);
    await server.call('DELETE', `/token/${token.uuid}/requests`);
    await s.waitForCount((e) => e.event === 'ping', 3);
    expect(new Set(s.events.map((e) => e.event))).toEqual(new Set(['ready', 'message', 'ping']));
  });

  it(`resumes with Last-Event-ID: the missed captures of the last ${SMEE_REPLAY_WINDOW_MS / 60_000} minutes, at most ${SMEE_REPLAY_MAX}, then live`, async () => {
    const token = await server.token();
    const first = await deliver(token.uuid, '', '{"i":0}', { 'Content-Type': 'application/json' });
    const sorting = (await server.call('GET', `/token/${token.uuid}/request/${first}`)).data.sorting as number;
    await deliver(token.uuid, '', '{"i":"too old"}', { 'Content-Type': 'application/json' });
    now += 1;
    for (let i = 1; i <= 3; i++) await deliver(token.uuid, '', JSON.stringify({ i }), { 'Content-Type': 'application/json' });
    // Captures made exactly the window ago are still sent; one a millisecond older is not.
    now += SMEE_REPLAY_WINDOW_MS;
    const s = await sse(`/token/${token.uuid}/smee`, { 'Last-Event-ID': String(sorting) });
    await s.waitFor((e) => e.event === 'ready');
    await deliver(token.uuid, '', '{"i":"live"}', { 'Content-Type': 'application/json' });
    const got = await s.waitForCount((e) => e.event === 'message', 4);
    expect(got.map((e) => e.json.body.i)).toEqual([1, 2, 3, 'live']);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.events.filter((e) => e.event === 'message')).toHaveLength(4);

    const fresh = await sse(`/token/${token.uuid}/smee`);
    await fresh.waitForCount((e) => e.event === 'ping', 1);
    expect(fresh.events.some((e) => e.event === 'message')).toBe(false);
  });

  it(`replays at most the last ${SMEE_REPLAY_MAX} missed captures`, async () => {
    const token = await server.token();
    for (let i = 0; i < SMEE_REPLAY_MAX + 20; i++) await deliver(token.uuid, '', JSON.stringify({ i }), { 'Content-Type': 'application/json' });
    const s = await sse(`/token/${token.uuid}/smee?last_event_id=1`);
    const got = await s.waitForCount((e) => e.event === 'message', SMEE_REPLAY_MAX);
    expect(got[0]!.json.body.i).toBe(20);
    expect(got.at(-1)!.json.body.i).toBe(SMEE_REPLAY_MAX + 19);
    await s.waitForCount((e) => e.event === 'ping', 2);
    expect(s.events.filter((e) => e.event === 'message')).toHaveLength(SMEE_REPLAY_MAX);
  });
});

describe('smee channel access (as the live stream)', () => {
  it("refuses an owned token without credentials; opens with a share link's secret; revoking the link ends it", async () => {
    const owner = await server.user(false);
    const token = await server.token({}, owner.key);
    const refused = await sse(`/token/${token.uuid}/smee`);
    expect(refused.status).toBe(401);
    expect((await sse(`/token/${token.uuid}/smee?share=bogus`)).status).toBe(401);
    const link = await server.call('POST', `/token/${token.uuid}/share`, { key: owner.key });
    expect(link.status).toBe(201);

    const client = new SmeeClient({ source: `${server.url}/token/${token.uuid}/smee?share=${link.data.secret}`, target: targetUrl, logger: quiet });
    const events = await client.start();
    try {
      await deliver(token.uuid, '', '{"shared":1}', { 'Content-Type': 'application/json' });
      await until(() => received.length >= 1);
      expect(JSON.parse(received.splice(0)[0]!.body)).toEqual({ shared: 1 });

      const s = await sse(`/token/${token.uuid}/smee?share=${link.data.secret}`);
      expect(s.status).toBe(200);
      expect((await server.call('DELETE', `/token/${token.uuid}/share`, { key: owner.key })).status).toBe(204);
      await s.ended;
      // smee-client reconnects, is refused, and stops: the capture after revoking is not forwarded.
      await until(() => events.readyState === 2); // CLOSED
      await deliver(token.uuid, '', '{"after":"revoking"}', { 'Content-Type': 'application/json' });
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toEqual([]);
    } finally {
      await client.stop();
    }
  });

  it('answers 404 for an unknown token', async () => {
    expect((await sse('/token/00000000-0000-4000-8000-000000000000/smee')).status).toBe(404);
  });
});
