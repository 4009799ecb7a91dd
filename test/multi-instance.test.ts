// Two service processes on one store behave as one service: what one is told, the other knows;
// limits are counted once for both; jobs run once. The same cases run on one MongoDB database
// (MONGODB_URI's server, or the wire-compatible emulator .ci/run installs; skipped, naming what is
// missing, without either) and on one SQLite file (DATA_DIR shared), where docs/operating.md allows a
// read in one process to miss the other's captures of the last 200 ms: reads there are retried.
// That a job runs once needs job locks the server applies atomically; on a MongoDB server that
// does not (the emulator), those two cases are skipped, saying so.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardCollections, discardStoreData, NO_MONGO, startTestMongo, testDbName, type TestMongo } from './helpers/mongo.js';
import { startServiceProcess, type ServiceProcess } from './helpers/service-process.js';
import { openSse } from './helpers/sse.js';

const ADMIN = 'multi-instance-admin-key-0123';
const SECRET = 'multi-instance-secret-key-0123456789abcdef';
/** Anonymous and free users may create this many tokens a minute (per user or address, not per process). */
const FREE_TOKENS_PER_MIN = 3;

const SETTINGS = {
  ADMIN_API_KEY: ADMIN,
  SECRET_KEY: SECRET,
  TOKEN_CREATE_PER_MIN_FREE: String(FREE_TOKENS_PER_MIN),
  TOKEN_CREATE_PER_MIN_PREMIUM: '100000',
  TOKEN_PASSWORD_FAILURES_PER_MIN: '3',
  // Both processes look for due jobs often, so each would run a job it could lock.
  SCHEDULER_POLL_MS: '300',
  SHUTDOWN_GRACE_MS: '2000',
};

interface Reply {
  status: number;
  text: string;
  data: any;
  headers: Headers;
}

async function call(base: string, method: string, p: string, opts: { key?: string; json?: unknown; body?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.key) headers['Api-Key'] = opts.key;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(base + p, { method, headers, body });
  const text = await res.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: the text is what counts.
  }
  return { status: res.status, text, data, headers: res.headers };
}

/** Calls `fn` until it returns something other than undefined. */
async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Per-minute limits count in windows aligned to the minute: start a case well inside one. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await sleep(left + 100);
}

/** A server the schedule and the queued action call; it notes when each path was hit. */
async function startTarget() {
  const hits = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    hits.set(p, [...(hits.get(p) ?? []), Date.now()]);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (p: string) => hits.get(p)?.length ?? 0,
    times: (p: string) => hits.get(p) ?? [],
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

interface Instances {
  a: ServiceProcess;
  b: ServiceProcess;
  /** Removes what the instances stored. */
  discard(): Promise<void>;
}

/**
 * The cases, for two processes on whatever one store `start` puts them. `noJobLocks` says why the
 * store cannot show that a job runs once (its server lacks what job locks need); null when it can.
 */
function twoInstances(start: () => Promise<Instances>, noJobLocks: string | null = null): void {
  let instances: Instances;
  let A: string;
  let B: string;
  let key: string;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let scheduleId: number;
  const closers: Array<() => void> = [];
  /** Captures that answer late (token timeouts), awaited before the processes stop. */
  const late: Array<Promise<unknown>> = [];

  const token = async (base: string, body: Record<string, unknown> = {}) => {
    const r = await call(base, 'POST', '/token', { key, json: body });
    expect(r.status, r.text).toBe(200);
    return r.data as { uuid: string };
  };
  const listed = async (base: string, uuid: string): Promise<string[]> => {
    const r = await call(base, 'GET', `/token/${uuid}/requests?per_page=100`, { key });
    expect(r.status, r.text).toBe(200);
    return r.data.data.map((x: { uuid: string }) => x.uuid);
  };

  beforeAll(async () => {
    target = await startTarget();
    instances = await start();
    A = instances.a.url;
    B = instances.b.url;
    const user = await call(A, 'POST', '/users', { key: ADMIN, json: { name: 'ops', email: 'ops@example.test', premium: true } });
    expect(user.status, user.text).toBe(201);
    key = user.data.api_key;
    // Created first, as the schedule's first tick may be up to a minute away; checked last.
    const schedule = await call(A, 'POST', '/schedules', {
      key,
      json: { name: 'once', interval: '1-minute', request_method: 'GET', request_url: `${target.url}/schedule`, timeout: 10 },
    });
    expect(schedule.status, schedule.text).toBe(200);
    scheduleId = schedule.data.id;
  }, 240_000);

  afterAll(async () => {
    for (const c of closers) c();
    await Promise.allSettled(late);
    if (instances) {
      const codes = await Promise.all([instances.a.stop(), instances.b.stop()]);
      await instances.discard();
      expect(codes).toEqual([0, 0]);
    }
    await target?.close();
  }, 60_000);

  it('a token created on one is read on the other', async () => {
    const t = await token(A, { default_content: 'made on A' });
    const onB = await call(B, 'GET', `/token/${t.uuid}`, { key });
    expect(onB.status).toBe(200);
    expect(onB.data).toMatchObject({ uuid: t.uuid, default_content: 'made on A' });
  });

  it('a capture taken by one is listed and streamed live (SSE and socket.io) by the other', async () => {
    const t = await token(A);
    const sse = await openSse(`${B}/token/${t.uuid}/events`, { 'Api-Key': key });
    closers.push(() => sse.close());
    expect(sse.status).toBe(200);
    const socket = io(B, { transports: ['websocket'], reconnection: false });
    closers.push(() => socket.close());
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const subscribed = new Promise((resolve) => socket.once('subscribed', resolve));
    socket.emit('subscribe', { channel: `private-token.${t.uuid}`, auth: { headers: { 'Api-Key': key } } });
    await subscribed;
    const pushed = new Promise<any[]>((resolve) => socket.once('request.created', (...args: any[]) => resolve(args)));

    const captured = await call(A, 'POST', `/${t.uuid}/from-a`, { body: 'hello' });
    expect(captured.status).toBe(200);
    const id = captured.headers.get('x-request-id');

    expect((await sse.waitFor((e) => e.event === 'request.created', 10_000)).json.uuid).toBe(id);
    expect((await pushed)[1].request.uuid).toBe(id);
    expect(await until(async () => ((await listed(B, t.uuid)).includes(id!) ? true : undefined), 'the capture in B’s list')).toBe(true);
  });

  it('a set-response sent to one answers a caller waiting on the other', async () => {
    const t = await token(A, { listen: 10 });
    const waiting = call(B, 'POST', `/${t.uuid}`, { body: 'waits on B' });
    const id = await until(async () => (await listed(A, t.uuid))[0], 'the waiting capture on A');
    const set = await call(A, 'PUT', `/token/${t.uuid}/request/${id}/response`, {
      key,
      json: { status: 201, content: Buffer.from('answered through A').toString('base64'), headers: { 'X-Answered-By': 'a' } },
    });
    expect(set.status, set.text).toBeLessThan(300);
    const answer = await waiting;
    expect(answer.status).toBe(201);
    expect(answer.text).toBe('answered through A');
    expect(answer.headers.get('x-answered-by')).toBe('a');
  });

  it('the token timeout limit (100 / timeout a minute) is counted once for both', async () => {
    await freshMinute();
    const t = await token(A, { timeout: 30 }); // at most 3 requests a minute
    // Each allowed capture is answered only after its 30 s wait, but stored at once.
    for (const [i, base] of [A, B, A].entries()) {
      late.push(call(base, 'POST', `/${t.uuid}`, { body: 'slow' }).catch(() => null));
      await until(async () => ((await listed(A, t.uuid)).length === i + 1 ? true : undefined), `capture ${i + 1}`);
    }
    for (const base of [B, A]) {
      const refused = await call(base, 'POST', `/${t.uuid}`, { body: 'one too many' });
      expect(refused.status).toBe(429);
      expect(refused.text).toMatch(/at most 3 requests a minute/);
    }
  });

  it('the Rate Limit action is counted once for both', async () => {
    const t = await token(A, { actions: true });
    // A window of 31 days, aligned to the epoch: the case cannot straddle two.
    const action = await call(A, 'POST', `/token/${t.uuid}/actions`, { key, json: { type: 'rate_limit', parameters: { period: 86_400 * 31, count: 3 } } });
    expect(action.status, action.text).toBe(200);
    const statuses: number[] = [];
    for (const base of [A, B, A, B, A]) statuses.push((await call(base, 'POST', `/${t.uuid}`, { body: 'counted' })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(await until(async () => ((await listed(B, t.uuid)).length === 3 ? 3 : undefined), 'three stored captures')).toBe(3);
  });

  it('the token-creation limit is counted once for both', async () => {
    const free = await call(A, 'POST', '/users', { key: ADMIN, json: { name: 'free', email: 'free@example.test', premium: false } });
    expect(free.status, free.text).toBe(201);
    await freshMinute();
    const statuses: number[] = [];
    for (const base of [A, B, A, B, A]) statuses.push((await call(base, 'POST', '/token', { key: free.data.api_key, json: {} })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('wrong token passwords are counted once for both, and then the right one waits too', async () => {
    const t = await token(A);
    expect((await call(A, 'PUT', `/token/${t.uuid}/password`, { key, json: { password: 'right', old_password: '' } })).status).toBe(200);
    await freshMinute();
    const statuses: number[] = [];
    for (const base of [A, B, A, B]) statuses.push((await call(base, 'GET', `/token/${t.uuid}/requests?password=wrong`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const right = await call(A, 'GET', `/token/${t.uuid}/requests?password=right`);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.data.message).toMatch(/Too many wrong passwords for this token/);
    // The owner's key is never throttled.
    expect((await call(B, 'GET', `/token/${t.uuid}/requests`, { key })).status).toBe(200);
  });

  it('a deleted token stops capturing on both within a few seconds', async () => {
    const t = await token(A);
    // Both have resolved (and may keep) the token.
    expect((await call(A, 'POST', `/${t.uuid}`, { body: 'before' })).status).toBe(200);
    expect((await call(B, 'POST', `/${t.uuid}`, { body: 'before' })).status).toBe(200);
    expect((await call(A, 'DELETE', `/token/${t.uuid}`, { key })).status).toBe(204);
    expect((await call(A, 'POST', `/${t.uuid}`, { body: 'after' })).status).toBe(404);
    const deletedAt = Date.now();
    await until(async () => ((await call(B, 'POST', `/${t.uuid}`, { body: 'after' })).status === 404 ? true : undefined), 'B to refuse the deleted token', 5000);
    expect(Date.now() - deletedAt).toBeLessThan(5000);
    expect((await call(B, 'GET', `/token/${t.uuid}/requests`, { key })).status).toBe(404);
  });

  it.skipIf(noJobLocks)(`a queued action runs once${noJobLocks ? `: ${noJobLocks}` : ''}`, async () => {
    const t = await token(A, { actions: true });
    const p = `/queued/${t.uuid}`;
    const action = await call(A, 'POST', `/token/${t.uuid}/actions`, { key, json: { type: 'send_request', queue: true, parameters: { url: target.url + p, method: 'GET' } } });
    expect(action.status, action.text).toBe(200);
    expect((await call(B, 'POST', `/${t.uuid}`, { body: 'queue it' })).status).toBe(200);
    await until(async () => (target.hits(p) > 0 ? true : undefined), 'the queued action', 20_000);
    // Many polling rounds of both processes later, still one run.
    await sleep(3000);
    expect(target.hits(p)).toBe(1);
  });

  it.skipIf(noJobLocks)(`a Queue Profile throttles and orders the jobs of both processes${noJobLocks ? `: ${noJobLocks}` : ''}`, { timeout: 60_000 }, async () => {
    const PER = 3;
    const PERIOD_MS = 3000;
    const profile = await call(A, 'POST', '/queue-profiles', { key, json: { name: 'crm api', rate_limit: PER, rate_period: PERIOD_MS / 1000 } });
    expect(profile.status, profile.text).toBe(200);
    const t = await token(A, { actions: true });
    const p = `/profiled/${t.uuid}`;
    // Two queued steps in the profile: one group, run together, sharing the variable the first sets.
    for (const [type, parameters] of [
      ['set_variable', { name: 'n', value: '$request.content$' }],
      ['send_request', { url: `${target.url}${p}/$n$`, method: 'GET' }],
    ] as const) {
      const a = await call(B, 'POST', `/token/${t.uuid}/actions`, { key, json: { type, parameters, queue: true, queue_profile: profile.data.id } });
      expect(a.status, a.text).toBe(200);
      expect(a.data.queue_profile).toBe(profile.data.id);
    }
    // Captures start just after a window opens, so the first jobs do not straddle two windows.
    await sleep(PERIOD_MS - (Date.now() % PERIOD_MS) + 50);
    const N = 8;
    for (let i = 1; i <= N; i++) expect((await call(i % 2 ? A : B, 'POST', `/${t.uuid}`, { body: String(i) })).status).toBe(200);
    const paths = () => [...Array(N).keys()].map((i) => `${p}/${i + 1}`);
    await until(async () => (paths().every((x) => target.hits(x) === 1) ? true : undefined), 'every profiled job', 40_000);
    const times = paths().map((x) => target.times(x)[0]!);
    // In the order they were captured, whichever process ran each.
    expect(times).toEqual([...times].sort((x, y) => x - y));
    // At most PER jobs start in any period (it slides; every clock-aligned one is a period too),
    // so N take several; and no PER + 1 consecutive starts fit in one period (times are when the
    // target heard each job, a few milliseconds after it started: a little slack).
    const perWindow = new Map<number, number>();
    for (const at of times) perWindow.set(Math.floor(at / PERIOD_MS), (perWindow.get(Math.floor(at / PERIOD_MS)) ?? 0) + 1);
    expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(PER);
    expect(perWindow.size).toBeGreaterThanOrEqual(Math.ceil(N / PER));
    for (let i = PER; i < N; i++) expect(times[i]! - times[i - PER]!).toBeGreaterThanOrEqual(PERIOD_MS - 250);
    await sleep(1000);
    expect(paths().map((x) => target.hits(x))).toEqual(Array(N).fill(1));
  });

  it.skipIf(noJobLocks)(`a schedule ticks once, not once per process${noJobLocks ? `: ${noJobLocks}` : ''}`, { timeout: 100_000 }, async () => {
    await until(async () => (target.hits('/schedule') > 0 ? true : undefined), 'the schedule’s first tick', 80_000);
    await sleep(3000);
    // If the cases before took long, the next minute's tick may have come too: one hit per minute.
    const minutes = target.times('/schedule').map((t) => Math.floor(t / 60_000));
    expect(new Set(minutes).size).toBe(minutes.length);
    for (const base of [A, B]) {
      const logs = await call(base, 'GET', `/schedules/${scheduleId}/logs`, { key });
      expect(logs.status, logs.text).toBe(200);
      expect(logs.data.total).toBe(minutes.length);
    }
  });
}

const mongo: TestMongo | null = await startTestMongo();
afterAll(() => mongo?.stop());

/**
 * Whether the server applies findOneAndUpdate atomically, as MongoDB does: Agenda locks a job by
 * updating it where `lockedAt` is null, so two processes may run the same job on a server where
 * both such updates can match. The wire-compatible emulator fails this within a few hundred rounds.
 */
async function locksAtomically(uri: string): Promise<boolean> {
  const dbName = testDbName('capture_lock_probe');
  const clients = await Promise.all([MongoClient.connect(withDatabase(uri, dbName)), MongoClient.connect(withDatabase(uri, dbName))]);
  const [one, two] = clients.map((c) => c.db(dbName).collection<{ lockedAt: Date | null }>('lock_probe'));
  try {
    for (let i = 0; i < 500; i++) {
      const { insertedId } = await one!.insertOne({ lockedAt: null });
      const lock = (c: typeof one) => c!.findOneAndUpdate({ _id: insertedId, lockedAt: null }, { $set: { lockedAt: new Date() } });
      const locked = await Promise.all([lock(one), lock(two), lock(one), lock(two)]);
      if (locked.filter(Boolean).length > 1) return false;
    }
    return true;
  } finally {
    await discardCollections(clients[0]!.db(dbName), ['lock_probe']);
    await Promise.all(clients.map((c) => c.close()));
  }
}
const NO_ATOMIC_LOCKS = 'skip: the MongoDB server can apply one findOneAndUpdate twice (job locks need it atomic, as MongoDB is; the emulator is not)';
const mongoJobLocks = mongo && !(await locksAtomically(mongo.uri)) ? NO_ATOMIC_LOCKS : null;

/** `uri` with its database (the path) replaced by `db`. */
function withDatabase(uri: string, db: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${db}`);
}

describe.skipIf(!mongo)(mongo ? 'two processes on one MongoDB database' : `two processes on one MongoDB database: ${NO_MONGO}`, () => {
  twoInstances(async () => {
    const dbName = testDbName('capture_multi');
    const env = { ...SETTINGS, MONGODB_URI: withDatabase(mongo!.uri, dbName) };
    const [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    return { a, b, discard: () => discardStoreData(mongo!.uri, dbName) };
  }, mongoJobLocks);
});

describe('two processes on one SQLite file', () => {
  twoInstances(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'multi-instance-'));
    const env = { ...SETTINGS, DATA_DIR: dir };
    const [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    return { a, b, discard: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  });
});
