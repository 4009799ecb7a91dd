// SSE endpoint of the realtime module: GET /token/:token/events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealtimeModule } from '../core/realtime/module.js';
import { changeOwner, deleteUser, newKey, revokeKey } from './helpers/access-changes.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/server.js';
import { openSse, type SseClient } from './helpers/sse.js';
import { BUS } from '../core/service-keys.js';

let server: TestServer;
const open: SseClient[] = [];

async function sse(path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const c = await openSse(server.url + path, headers);
  open.push(c);
  return c;
}

async function capture(tokenId: string, path = '/hello', body = '{"a":1}') {
  const r = await server.call('POST', `/${tokenId}${path}`, { body, headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' } });
  expect(r.status).toBe(200);
  return r.headers.get('x-request-id')!;
}

beforeAll(async () => {
  server = await startTestServer({}, { modules: [createRealtimeModule({ sse: { heartbeatMs: 50 } })] });
});

afterAll(async () => {
  for (const c of open) c.close();
  await server.close();
});

describe('SSE events', () => {
  it('streams request.created with the API request object and the sorting key as id', async () => {
    const token = await server.token();
    const s = await sse(`/token/${token.uuid}/events`);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('cache-control')).toContain('no-cache');
    expect(s.headers.get('x-accel-buffering')).toBe('no');

    const started = performance.now();
    const id = await capture(token.uuid, '/some/path?x=1');
    const e = await s.waitFor((e) => e.event === 'request.created');
    const latencyMs = performance.now() - started;
    const api = await server.call('GET', `/token/${token.uuid}/request/${id}`);
    expect(e.json).toEqual(api.data);
    expect(e.id).toBe(String(api.data.sorting));
    expect(e.json.method).toBe('POST');
    expect(e.json.query).toEqual({ x: '1' });
    expect(e.json.headers['x-test']).toEqual(['yes']);
    expect(latencyMs).toBeLessThan(2000);
  });

  it('publishes request.deleted for one, all and filtered deletions, and token.updated', async () => {
    const token = await server.token();
    const s = await sse(`/token/${token.uuid}/events`);
    const a = await capture(token.uuid);
    await capture(token.uuid);
    await s.waitForCount((e) => e.event === 'request.created', 2);

    expect((await server.call('DELETE', `/token/${token.uuid}/request/${a}`)).status).toBe(204);
    expect((await s.waitFor((e) => e.event === 'request.deleted')).json).toEqual({ uuid: a });

    expect((await server.call('DELETE', `/token/${token.uuid}/request?query=${encodeURIComponent('method:POST')}`)).status).toBe(204);
    const filtered = await s.waitForCount((e) => e.event === 'request.deleted', 2);
    expect(filtered[1]!.json).toEqual({ filter: { query: 'method:POST', date_from: null, date_to: null }, count: 1 });

    await capture(token.uuid);
    expect((await server.call('DELETE', `/token/${token.uuid}/requests`)).status).toBe(204);
    const all = await s.waitForCount((e) => e.event === 'request.deleted', 3);
    expect(all[2]!.json).toEqual({ all: true });

    const put = await server.call('PUT', `/token/${token.uuid}`, { json: { default_status: 201, default_content: 'hi' } });
    expect(put.status).toBe(200);
    const upd = await s.waitFor((e) => e.event === 'token.updated');
    expect(upd.json).toEqual(put.data);
    expect(upd.id).toBeUndefined();
  });

  it('does not send other tokens’ events', async () => {
    const mine = await server.token();
    const other = await server.token();
    const s = await sse(`/token/${mine.uuid}/events`);
    await capture(other.uuid);
    const id = await capture(mine.uuid);
    const e = await s.waitFor((e) => e.event === 'request.created');
    expect(e.json.uuid).toBe(id);
    expect(s.events.filter((e) => e.event === 'request.created')).toHaveLength(1);
  });

  it('ends the stream with token.deleted when the token is deleted', async () => {
    const token = await server.token();
    const s = await sse(`/token/${token.uuid}/events`);
    expect((await server.call('DELETE', `/token/${token.uuid}`)).status).toBe(204);
    expect((await s.waitFor((e) => e.event === 'token.deleted')).json).toEqual({ uuid: token.uuid });
    await s.ended;
  });

  it('sends a heartbeat comment at the configured interval', async () => {
    const token = await server.token();
    const s = await sse(`/token/${token.uuid}/events`);
    await new Promise((r) => setTimeout(r, 400));
    expect(s.comments.filter((c) => c === 'ping').length).toBeGreaterThanOrEqual(3);
  });
});

describe('SSE auth (as the token API)', () => {
  it('refuses an owned token without the key or with another user’s key; accepts Api-Key or ?api_key=', async () => {
    const owner = await server.user(false);
    const stranger = await server.user(false);
    const token = await server.token({}, owner.key);

    const anon = await sse(`/token/${token.uuid}/events`);
    expect(anon.status).toBe(401);
    const other = await sse(`/token/${token.uuid}/events`, { 'Api-Key': stranger.key });
    expect(other.status).toBe(403);
    const otherQuery = await sse(`/token/${token.uuid}/events?api_key=${stranger.key}`);
    expect(otherQuery.status).toBe(403);
    const bad = await sse(`/token/${token.uuid}/events?api_key=nope`);
    expect(bad.status).toBe(401);

    const byHeader = await sse(`/token/${token.uuid}/events`, { 'Api-Key': owner.key });
    expect(byHeader.status).toBe(200);
    const byQuery = await sse(`/token/${token.uuid}/events?api_key=${owner.key}`);
    expect(byQuery.status).toBe(200);
    const id = await capture(token.uuid);
    expect((await byQuery.waitFor((e) => e.event === 'request.created')).json.uuid).toBe(id);
    expect((await byHeader.waitFor((e) => e.event === 'request.created')).json.uuid).toBe(id);
  });

  it('needs the password of a passworded token (query or Basic Auth)', async () => {
    const owner = await server.user(true);
    const token = await server.token({}, owner.key);
    expect((await server.call('PUT', `/token/${token.uuid}/password`, { key: owner.key, json: { password: 's3cret' } })).status).toBe(200);

    expect((await sse(`/token/${token.uuid}/events`)).status).toBe(401);
    expect((await sse(`/token/${token.uuid}/events?password=wrong`)).status).toBe(401);
    expect((await sse(`/token/${token.uuid}/events?password=s3cret`)).status).toBe(200);
    const basic = 'Basic ' + Buffer.from('x:s3cret').toString('base64');
    expect((await sse(`/token/${token.uuid}/events`, { Authorization: basic })).status).toBe(200);
  });

  it('answers 404 for an unknown token', async () => {
    expect((await sse(`/token/00000000-0000-4000-8000-000000000000/events`)).status).toBe(404);
  });
});

describe('SSE streams honour revocation', () => {
  /** A capture after the revocation reaches the stream still authorised, never the revoked one. */
  async function deliveredOnlyTo(tokenId: string, kept: SseClient, revoked: SseClient) {
    const id = await capture(tokenId);
    await kept.waitFor((e) => e.event === 'request.created' && e.json.uuid === id);
    expect(revoked.events.some((e) => e.event === 'request.created' && e.json.uuid === id)).toBe(false);
  }

  it('ends a stream opened with a key when that key is revoked; one opened with another key of the user stays', async () => {
    const user = await server.user(false);
    const token = await server.token({}, user.key);
    const otherKey = await newKey(server, user);
    const revoked = await sse(`/token/${token.uuid}/events?api_key=${user.key}`);
    const kept = await sse(`/token/${token.uuid}/events`, { 'Api-Key': otherKey });
    expect([revoked.status, kept.status]).toEqual([200, 200]);

    await revokeKey(server, user);
    await revoked.ended;
    await deliveredOnlyTo(token.uuid, kept, revoked);
  });

  it('ends the user’s streams when the user is deleted; the administrator’s stream stays', async () => {
    const user = await server.user(false);
    const token = await server.token({}, user.key);
    const revoked = await sse(`/token/${token.uuid}/events`, { 'Api-Key': user.key });
    const kept = await sse(`/token/${token.uuid}/events`, { 'Api-Key': ADMIN_KEY });

    deleteUser(server, user.id);
    await revoked.ended;
    await deliveredOnlyTo(token.uuid, kept, revoked);
  });

  it('ends a stream opened with the token password when the password changes; the owner’s stays', async () => {
    const owner = await server.user(true);
    const token = await server.token({}, owner.key);
    const setPw = (json: Record<string, string>) => server.call('PUT', `/token/${token.uuid}/password`, { key: owner.key, json });
    expect((await setPw({ password: 'one' })).status).toBe(200);
    const revoked = await sse(`/token/${token.uuid}/events?password=one`);
    const kept = await sse(`/token/${token.uuid}/events`, { 'Api-Key': owner.key });
    expect(revoked.status).toBe(200);

    expect((await setPw({ password: 'two', old_password: 'one' })).status).toBe(200);
    await revoked.ended;
    // The change itself reaches only those who may still open the token.
    await kept.waitFor((e) => e.event === 'token.updated');
    expect(revoked.events.some((e) => e.event === 'token.updated')).toBe(false);
    await deliveredOnlyTo(token.uuid, kept, revoked);
  });

  it('ends the streams of those who lose the token when it changes owner', async () => {
    const before = await server.user(false);
    const after = await server.user(false);
    const token = await server.token({}, before.key);
    const revoked = await sse(`/token/${token.uuid}/events`, { 'Api-Key': before.key });
    const kept = await sse(`/token/${token.uuid}/events`, { 'Api-Key': ADMIN_KEY });

    await changeOwner(server, token.uuid, after.id);
    await revoked.ended;
    await deliveredOnlyTo(token.uuid, kept, revoked);

    // An anonymous token that gets an owner is closed to anonymous streams too.
    const open = await server.token();
    const anon = await sse(`/token/${open.uuid}/events`);
    const owner = await sse(`/token/${open.uuid}/events`, { 'Api-Key': after.key });
    await changeOwner(server, open.uuid, after.id);
    await anon.ended;
    await deliveredOnlyTo(open.uuid, owner, anon);
  });

  it('keeps streams whose access a change leaves intact', async () => {
    const user = await server.user(true);
    const token = await server.token({}, user.key);
    const s = await sse(`/token/${token.uuid}/events`, { 'Api-Key': user.key });
    await revokeKey(server, await server.user(false)); // someone else's key
    await newKey(server, user);
    server.provided.get(BUS)!.publishAccess({ type: 'user.access_changed', userId: user.id });
    expect((await server.call('PUT', `/token/${token.uuid}/password`, { key: user.key, json: { password: 'pw' } })).status).toBe(200);
    const id = await capture(token.uuid);
    expect((await s.waitFor((e) => e.event === 'request.created')).json.uuid).toBe(id);
  });
});

describe('SSE resume with Last-Event-ID', () => {
  it('replays what was missed, then continues live, without gaps or duplicates', async () => {
    const token = await server.token();
    const first = await sse(`/token/${token.uuid}/events`);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) seen.push(await capture(token.uuid, `/a${i}`));
    const got = await first.waitForCount((e) => e.event === 'request.created', 3);
    expect(got.map((e) => e.json.uuid)).toEqual(seen);
    const lastId = got[2]!.id!;
    first.close();

    const missed: string[] = [];
    for (let i = 0; i < 4; i++) missed.push(await capture(token.uuid, `/b${i}`));

    // Reconnect while captures keep coming: each must arrive exactly once, in order.
    const live = Array.from({ length: 6 }, (_, i) => capture(token.uuid, `/c${i}`));
    const resumed = await sse(`/token/${token.uuid}/events`, { 'Last-Event-ID': lastId });
    const liveIds = await Promise.all(live);
    const more = [await capture(token.uuid, '/d')];
    const all = await resumed.waitForCount((e) => e.event === 'request.created', 11);
    await new Promise((r) => setTimeout(r, 100));
    const uuids = resumed.events.filter((e) => e.event === 'request.created').map((e) => e.json.uuid);
    expect(uuids).toHaveLength(11);
    expect(new Set(uuids).size).toBe(11);
    expect(uuids.slice(0, 4)).toEqual(missed);
    expect(new Set(uuids.slice(4, 10))).toEqual(new Set(liveIds));
    expect(uuids[10]).toBe(more[0]);
    const ids = all.map((e) => Number(e.id));
    expect(ids.every((id) => id > Number(lastId))).toBe(true);
    // Replayed and live events together list the token's requests after lastId, oldest first.
    const list = await server.call('GET', `/token/${token.uuid}/requests?sorting=oldest&per_page=100`);
    const after = (list.data.data as Array<{ uuid: string; sorting: number }>).filter((r) => r.sorting > Number(lastId)).map((r) => r.uuid);
    expect(new Set(uuids)).toEqual(new Set(after));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('accepts ?last_event_id= (EventSource cannot set headers on its first connection)', async () => {
    const token = await server.token();
    const a = await capture(token.uuid);
    const b = await capture(token.uuid);
    const list = await server.call('GET', `/token/${token.uuid}/requests?sorting=oldest`);
    const sortingA = list.data.data[0].sorting;
    const s = await sse(`/token/${token.uuid}/events?last_event_id=${sortingA}`);
    const e = await s.waitFor((e) => e.event === 'request.created');
    expect(e.json.uuid).toBe(b);
    await new Promise((r) => setTimeout(r, 100));
    expect(s.events.filter((e) => e.event === 'request.created').map((e) => e.json.uuid)).toEqual([b]);
    expect(a).not.toBe(b);
  });

  it('replays more than one page of requests', async () => {
    const token = await server.token();
    const s0 = await sse(`/token/${token.uuid}/events`);
    await capture(token.uuid);
    const firstId = (await s0.waitFor((e) => e.event === 'request.created')).id!;
    s0.close();
    // More than one page (200) of the replay.
    await Promise.all(Array.from({ length: 230 }, (_, i) => capture(token.uuid, `/p${i}`)));
    const s = await sse(`/token/${token.uuid}/events`, { 'Last-Event-ID': firstId });
    const got = await s.waitForCount((e) => e.event === 'request.created', 230, 10_000);
    expect(new Set(got.map((e) => e.json.uuid)).size).toBe(230);
    const ids = got.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe('SSE shutdown', () => {
  it('ends open streams when the server closes, without waiting for the connection timeout', async () => {
    const own = await startTestServer({}, { modules: [createRealtimeModule()] });
    const token = await own.token();
    const s = await openSse(`${own.url}/token/${token.uuid}/events`);
    expect(s.status).toBe(200);
    const started = performance.now();
    await own.close();
    // server.close() would otherwise wait for the 2 s closeAllConnections fallback.
    expect(performance.now() - started).toBeLessThan(1500);
    await s.ended;
  });
});
