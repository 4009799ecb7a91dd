// Two service instances on one SQLite file (as two processes would run): each one's subscribers
// see the other's captures, deletions and token changes through the polling feed, and lose their
// streams when the other revokes what opened them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io as ioV4 } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealtimeModule } from '../core/realtime/module.js';
import { revokeKey } from './helpers/access-changes.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { openSse, type SseClient } from './helpers/sse.js';

let dir: string;
let a: TestServer;
let b: TestServer;
const closers: Array<() => void> = [];

async function sse(server: TestServer, p: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const c = await openSse(server.url + p, headers);
  closers.push(() => c.close());
  return c;
}

async function capture(server: TestServer, tokenId: string, p = '/multi') {
  const r = await server.call('POST', `/${tokenId}${p}`, { json: { via: server.url } });
  expect(r.status).toBe(200);
  return r.headers.get('x-request-id')!;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'realtime-multi-'));
  a = await startTestServer({ DATA_DIR: dir }, { modules: [createRealtimeModule({ pollMs: 50 })] });
  b = await startTestServer({ DATA_DIR: dir }, { modules: [createRealtimeModule({ pollMs: 50 })] });
});

afterAll(async () => {
  for (const c of closers) c();
  await a?.close();
  await b?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('two instances on one SQLite file', () => {
  it('each instance’s SSE subscribers get the other’s captures, once', async () => {
    const token = await a.token();
    const onA = await sse(a, `/token/${token.uuid}/events`);
    const onB = await sse(b, `/token/${token.uuid}/events`);

    const viaB = await capture(b, token.uuid);
    const viaA = await capture(a, token.uuid);
    const gotA = await onA.waitForCount((e) => e.event === 'request.created', 2);
    const gotB = await onB.waitForCount((e) => e.event === 'request.created', 2);
    expect(new Set(gotA.map((e) => e.json.uuid))).toEqual(new Set([viaA, viaB]));
    expect(new Set(gotB.map((e) => e.json.uuid))).toEqual(new Set([viaA, viaB]));

    const api = await a.call('GET', `/token/${token.uuid}/request/${viaB}`);
    expect(gotA.find((e) => e.json.uuid === viaB)!.json).toEqual(api.data);

    // Several polling rounds later, still no duplicates.
    await new Promise((r) => setTimeout(r, 300));
    expect(onA.events.filter((e) => e.event === 'request.created')).toHaveLength(2);
    expect(onB.events.filter((e) => e.event === 'request.created')).toHaveLength(2);
  });

  it('shares deletions and token changes made on the other instance', async () => {
    const token = await a.token();
    const onA = await sse(a, `/token/${token.uuid}/events`);
    const id = await capture(a, token.uuid);
    await onA.waitFor((e) => e.event === 'request.created');

    expect((await b.call('DELETE', `/token/${token.uuid}/request/${id}`)).status).toBe(204);
    expect((await onA.waitFor((e) => e.event === 'request.deleted')).json).toEqual({ uuid: id });

    await capture(b, token.uuid);
    expect((await b.call('DELETE', `/token/${token.uuid}/requests`)).status).toBe(204);
    const deleted = await onA.waitForCount((e) => e.event === 'request.deleted', 2);
    expect(deleted[1]!.json).toEqual({ all: true });

    const put = await b.call('PUT', `/token/${token.uuid}`, { json: { default_content: 'from b' } });
    expect(put.status).toBe(200);
    const upd = await onA.waitFor((e) => e.event === 'token.updated');
    expect(upd.json).toEqual(put.data);

    expect((await b.call('DELETE', `/token/${token.uuid}`)).status).toBe(204);
    await onA.waitFor((e) => e.event === 'token.deleted');
    await onA.ended;
  });

  it('ends streams of one instance when the other revokes the key or changes the token password', async () => {
    const user = await a.user(true);
    const token = await a.token({}, user.key);
    const byKey = await sse(a, `/token/${token.uuid}/events`, { 'Api-Key': user.key });
    expect((await b.call('PUT', `/token/${token.uuid}/password`, { key: user.key, json: { password: 'one' } })).status).toBe(200);
    const byPassword = await sse(a, `/token/${token.uuid}/events?password=one`);
    expect(byPassword.status).toBe(200);

    expect((await b.call('PUT', `/token/${token.uuid}/password`, { key: user.key, json: { password: 'two', old_password: 'one' } })).status).toBe(200);
    await byPassword.ended;
    await revokeKey(b, user);
    await byKey.ended;
    const id = await capture(b, token.uuid);
    await new Promise((r) => setTimeout(r, 200));
    for (const s of [byKey, byPassword]) expect(s.events.some((e) => e.json?.uuid === id)).toBe(false);
  });

  it('ends share-link streams of one instance when the other revokes or replaces the link', async () => {
    const user = await a.user(false);
    const token = await a.token({}, user.key);
    const first = (await b.call('POST', `/token/${token.uuid}/share`, { key: user.key })).data.secret as string;
    const replaced = await sse(a, `/token/${token.uuid}/events?share=${first}`);
    expect(replaced.status).toBe(200);
    const second = (await b.call('POST', `/token/${token.uuid}/share`, { key: user.key })).data.secret as string;
    await replaced.ended;
    const revoked = await sse(a, `/token/${token.uuid}/events?share=${second}`);
    expect(revoked.status).toBe(200);
    const before = await capture(b, token.uuid);
    await revoked.waitFor((e) => e.event === 'request.created' && e.json.uuid === before);
    expect((await b.call('DELETE', `/token/${token.uuid}/share`, { key: user.key })).status).toBe(204);
    await revoked.ended;
    const after = await capture(b, token.uuid);
    await new Promise((r) => setTimeout(r, 200));
    expect(revoked.events.some((e) => e.json?.uuid === after)).toBe(false);
  });

  it('socket.io subscribers of one instance get the other instance’s captures', async () => {
    const token = await b.token();
    const socket = ioV4(a.url, { transports: ['websocket'], reconnection: false });
    closers.push(() => socket.close());
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const channel = `private-token.${token.uuid}`;
    const subscribed = new Promise((resolve) => socket.once('subscribed', resolve));
    socket.emit('subscribe', { channel, auth: { headers: {} } });
    await subscribed;
    const event = new Promise<any[]>((resolve) => socket.once('request.created', (...args: any[]) => resolve(args)));
    const id = await capture(b, token.uuid);
    const [ch, data] = await event;
    expect(ch).toBe(channel);
    expect(data.request.uuid).toBe(id);
  });

  it('resumes with Last-Event-ID across instances', async () => {
    const token = await a.token();
    const first = await sse(a, `/token/${token.uuid}/events`);
    await capture(a, token.uuid);
    const lastId = (await first.waitFor((e) => e.event === 'request.created')).id!;
    first.close();
    const missed = [await capture(b, token.uuid), await capture(a, token.uuid), await capture(b, token.uuid)];
    const resumed = await sse(b, `/token/${token.uuid}/events?last_event_id=${lastId}`);
    const got = await resumed.waitForCount((e) => e.event === 'request.created', 3);
    expect(got.map((e) => e.json.uuid)).toEqual(missed);
  });
});
