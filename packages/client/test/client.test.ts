// @capture/client against a started server: tokens, waiting for a request (stored, arriving, timed
// out), latest, deleteAll, raw bytes, live events and the API's errors as CaptureError.
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { CaptureClient, CaptureError, WaitTimeout, type CapturedRequest } from '../src/index.js';

let s: TestServer;
let capture: CaptureClient;

beforeAll(async () => {
  s = await startTestServer();
  capture = new CaptureClient({ url: s.url });
});
afterAll(async () => {
  await s?.close();
});

const send = (url: string, init: RequestInit = {}) => fetch(url, { method: 'POST', ...init }).then((r) => r.text());

describe('CaptureClient', () => {
  it('creates a token whose URL captures, and finds a stored request at once', async () => {
    const token = await capture.createToken({ default_status: 201, default_content: 'got it' });
    expect(token.default_status).toBe(201);
    expect(await send(`${capture.captureUrl(token)}/orders?id=7`, { body: '{"total":42}', headers: { 'Content-Type': 'application/json' } })).toBe('got it');
    const r = await capture.waitForRequest(token, 'method:POST', 5);
    expect(r.method).toBe('POST');
    expect(r.query).toEqual({ id: '7' });
    expect(JSON.parse(r.content)).toEqual({ total: 42 });
  });

  it('waits for a matching request that arrives later, newer than `after`', async () => {
    const token = await capture.createToken();
    await send(capture.captureUrl(token), { body: 'first' });
    const first = (await capture.latest(token))!;
    const waiting = capture.waitForRequest(token, 'content:second', 10, { after: first });
    await new Promise((r) => setTimeout(r, 200));
    await send(capture.captureUrl(token), { body: 'second' });
    const r = await waiting;
    expect(r.content).toBe('second');
    expect(r.sorting).toBeGreaterThan(first.sorting);
  });

  it('throws WaitTimeout (408) when nothing matches in time', async () => {
    const token = await capture.createToken();
    await send(capture.captureUrl(token), { body: 'other' });
    const started = Date.now();
    const err = await capture.waitForRequest(token, 'content:never', 0.5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeout);
    expect((err as WaitTimeout).status).toBe(408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('latest is null for a token without requests; deleteAll removes the matching ones, then all', async () => {
    const token = await capture.createToken();
    expect(await capture.latest(token)).toBeNull();
    await send(capture.captureUrl(token), { body: 'keep' });
    await send(capture.captureUrl(token), { body: 'drop' });
    expect((await capture.latest(token))!.content).toBe('drop');
    await capture.deleteAll(token, 'content:drop');
    expect((await capture.requests(token)).data.map((r) => r.content)).toEqual(['keep']);
    await capture.deleteAll(token);
    expect(await capture.latest(token)).toBeNull();
    expect((await capture.requests(token)).total).toBe(0);
  });

  it('returns the exact bytes of a body', async () => {
    const token = await capture.createToken();
    const bytes = Buffer.from([0, 1, 2, 254, 255, 10]);
    await fetch(capture.captureUrl(token), { method: 'PUT', body: bytes, headers: { 'Content-Type': 'application/octet-stream' } });
    const r = (await capture.latest(token))!;
    expect(Buffer.compare(await capture.raw(token, r), bytes)).toBe(0);
  });

  it('streams request.created events live', async () => {
    const token = await capture.createToken();
    const stop = new AbortController();
    const seen: CapturedRequest[] = [];
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    const reading = (async () => {
      for await (const e of capture.events(token, { signal: stop.signal, onOpen: opened })) {
        if (e.event === 'request.created') seen.push(e.data);
        if (seen.length === 2) stop.abort();
      }
    })();
    await open;
    await send(`${capture.captureUrl(token)}/a`, { body: '1' });
    await send(`${capture.captureUrl(token)}/b`, { body: '2' });
    await reading;
    expect(seen.map((r) => r.content)).toEqual(['1', '2']);
  });

  it("turns the API's errors into CaptureError with the field messages; an owned token needs its key", async () => {
    const err = await capture.createToken({ default_status: 99 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CaptureError);
    expect((err as CaptureError).status).toBe(422);
    expect(Object.keys((err as CaptureError).errors)).toContain('default_status');

    const user = await s.user(false);
    const owner = new CaptureClient({ url: s.url, apiKey: user.key });
    const token = await owner.createToken();
    expect(token.user_id).toBe(user.id);
    expect(((await capture.getToken(token).catch((e: unknown) => e)) as CaptureError).status).toBeGreaterThanOrEqual(401);
    expect((await owner.getToken(token.uuid)).uuid).toBe(token.uuid);
  });

  it('says which server it could not reach', async () => {
    // A port nothing listens on: one the system just handed out and took back.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const nowhere = new CaptureClient({ url: `http://127.0.0.1:${port}` });
    const err = (await nowhere.createToken().catch((e: unknown) => e)) as CaptureError;
    expect(err).toBeInstanceOf(CaptureError);
    expect(err.message).toBe(`cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(() => new CaptureClient({ url: 'ftp://x' })).toThrow(/not an http\(s\) URL/);
  });
});
