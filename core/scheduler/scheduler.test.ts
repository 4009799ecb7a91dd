// Agenda as the scheduler: several processes on one SQLite file, crash recovery, queued jobs,
// token cleanup as a job, job sync and schedule documents from workflows/.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createOutboundClient } from '../net/outbound.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { ScheduleRecord, Store } from '../store/types.js';
import { systemClock } from '../util/time.js';
import { startTestServer } from '../../test/helpers/server.js';
import { createSchedulerModule } from './module.js';
import { parseDocuments } from '../workflows/kernel.js';
import { normaliseScheduleDocument } from './document.js';
import { createScheduler, JOBS, type Scheduler } from './scheduler.js';
import { ScheduleService } from './service.js';
import { JOBS as JOBS_KEY, SCHEDULES } from '../service-keys.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.join(here, 'test', 'worker.ts');
const outbound = createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: true, OUTBOUND_ALLOW_PRIVATE: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => T | Promise<T>, timeoutMs: number, every = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > end) return v;
    await sleep(every);
  }
}

let server: http.Server;
let base: string;
let hits: Array<{ path: string; tick: string; at: number }>;
/** Requests to /hang are held (never answered) while this is true. */
let holdHang = true;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const p = new URL(req.url!, 'http://x').pathname;
    req.resume();
    req.on('end', () => {
      hits.push({ path: p, tick: String(req.headers['x-tick'] ?? ''), at: Date.now() });
      if (p === '/hang' && holdHang) return;
      // Burst checks take a moment, as real ones do: one process cannot run all twenty at once.
      if (p.startsWith('/burst/')) return void setTimeout(() => res.end('ok'), 400);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let tmp: string;
beforeEach(() => {
  hits = [];
  holdHang = true;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A schedule stored directly, so that a test may tick every second (cron with seconds). */
async function storeSchedule(store: Store, userId: number, url: string, cron: string, timeout = 5): Promise<ScheduleRecord> {
  const document = {
    apiVersion: 'capture/v1',
    kind: 'Schedule',
    metadata: { name: 'every second' },
    spec: { interval: 'cron', cron, request: { method: 'GET', url, headers: ['X-Tick: $date$'], body: '', timeout }, checks: {} },
  };
  return store.schedules.create({ user_id: userId, document, source: null, last_run_at: null, last_status: null, created_at: Date.now(), updated_at: Date.now() });
}

function startWorker(file: string, name: string, lockMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file, name, String(lockMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker ${name} exited with ${code}: ${err}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

describe('several processes on one SQLite file', () => {
  it('two processes run a recurring schedule once per tick, and each due job once', async () => {
    const file = path.join(tmp, 'shared.sqlite');
    const store = createSqliteStore(file);
    const user = await store.users.create({ name: 'u', email: 'u@example.test', premium: true, created_at: 0, updated_at: 0 });
    // The 1-minute interval compressed to one second (cron with a seconds field) to keep the test short.
    const s = await storeSchedule(store, user.id, `${base}/tick`, '* * * * * *');
    // And twenty schedules that all fall due at the same moment, for the two processes to fight over.
    const burst: ScheduleRecord[] = [];
    for (let i = 0; i < 20; i++) burst.push(await storeSchedule(store, user.id, `${base}/burst/${i}`, '0 0 1 1 *'));
    const planner = await createScheduler({ store, clock: systemClock, logger: silentLogger, http: outbound }, { process: false, name: 'planner' });
    await planner.sync();
    const workers = await Promise.all([startWorker(file, 'A', 60_000), startWorker(file, 'B', 60_000)]);
    const due = Date.now() + 1000;
    store.db.prepare(`UPDATE agenda_jobs SET next_run_at = ? WHERE json_extract(data, '$.scheduleId') != ?`).run(due, s.id);
    const lockers = new Set<string>();
    const sampler = setInterval(() => {
      for (const r of store.db.prepare('SELECT DISTINCT last_modified_by AS by FROM agenda_jobs WHERE last_modified_by IS NOT NULL').all() as Array<{ by: string }>) lockers.add(r.by);
    }, 20);
    try {
      await sleep(3500);
      // One process goes away: the other carries on with the ticks.
      await stopWorker(workers[0]!);
      await sleep(2000);
    } finally {
      clearInterval(sampler);
      await Promise.all(workers.map(stopWorker));
    }
    const ticks = hits.filter((h) => h.path === '/tick').map((h) => h.tick);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ticks).size).toBe(ticks.length);
    const logs = await store.schedules.listLogs(s.id, { sorting: 'oldest', page: 1, perPage: 100 });
    expect(logs.total).toBe(ticks.length);
    // Ticks after A stopped came from B.
    expect(hits.filter((h) => h.path === '/tick' && h.at > due + 2600).length).toBeGreaterThanOrEqual(1);
    const bursts = hits
      .filter((h) => h.path.startsWith('/burst/'))
      .map((h) => h.path)
      .sort();
    expect(bursts).toEqual(burst.map((_, i) => `/burst/${i}`).sort());
    expect([...lockers].filter((x) => x !== 'planner').sort()).toEqual(['A', 'B']);
    // Both processes synced at start-up: still one job per schedule.
    const jobs = store.db.prepare(`SELECT count(*) AS n FROM agenda_jobs WHERE name = ?`).get(JOBS.schedule) as { n: number };
    expect(jobs.n).toBe(21);
    await store.close();
  }, 30_000);

  it('a process that dies mid-run leaves a lock that expires, and another process runs the job again', async () => {
    const file = path.join(tmp, 'crash.sqlite');
    const store = createSqliteStore(file);
    const user = await store.users.create({ name: 'u', email: 'u@example.test', premium: true, created_at: 0, updated_at: 0 });
    const s = await storeSchedule(store, user.id, `${base}/hang`, '* * * * * *', 30);
    const a = await startWorker(file, 'A', 1500);
    let b: ChildProcess | undefined;
    try {
      expect(await until(() => hits.some((h) => h.path === '/hang'), 5000)).toBe(true);
      // A is now waiting for the answer: kill it without letting it clean up.
      a.kill('SIGKILL');
      await new Promise((r) => a.once('exit', r));
      const killedAt = Date.now();
      const locked = store.db.prepare('SELECT locked_at, next_run_at, last_modified_by FROM agenda_jobs WHERE name = ?').get(JOBS.schedule) as {
        locked_at: number | null;
        next_run_at: number | null;
        last_modified_by: string;
      };
      expect(locked).toMatchObject({ next_run_at: null, last_modified_by: 'A' });
      expect(locked.locked_at).not.toBeNull();
      holdHang = false;
      b = await startWorker(file, 'B', 1500);
      const retried = await until(async () => (await store.schedules.listLogs(s.id, { sorting: 'oldest', page: 1, perPage: 10 })).items[0], 8000);
      expect(retried).toBeDefined();
      expect(retried!.response_status).toBe(200);
      // Not before the dead process's lock expired.
      expect(retried!.created_at - (locked.locked_at ?? 0)).toBeGreaterThanOrEqual(1500);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
    } finally {
      if (a.exitCode === null && a.signalCode === null) a.kill('SIGKILL');
      if (b) await stopWorker(b);
      await store.close();
    }
  }, 30_000);
});

describe('scheduler in one process', () => {
  let store: ReturnType<typeof createSqliteStore>;
  const started: Scheduler[] = [];
  beforeEach(() => {
    store = createSqliteStore(':memory:');
  });
  afterEach(async () => {
    for (const s of started.splice(0)) await s.stop();
    await store.close();
  });

  async function scheduler(over: Parameters<typeof createScheduler>[0] extends infer D ? Partial<D> : never = {}, opts: Parameters<typeof createScheduler>[1] = {}) {
    const s = await createScheduler({ store, clock: systemClock, logger: silentLogger, http: outbound, ...over }, { processEvery: 100, ...opts });
    started.push(s);
    return s;
  }

  it('a queued job runs after its delay, not before', async () => {
    const s = await scheduler();
    const ran: Array<{ at: number; data: unknown }> = [];
    s.jobs.define<{ n: number }>('test.queued', async (data) => {
      ran.push({ at: Date.now(), data });
    });
    await s.start();
    const t0 = Date.now();
    const id = await s.jobs.enqueue('test.queued', { n: 1 }, t0 + 600);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    await sleep(300);
    expect(ran).toEqual([]);
    expect(await until(() => ran.length === 1, 3000)).toBe(true);
    expect(ran[0]!.data).toEqual({ n: 1 });
    expect(ran[0]!.at - t0).toBeGreaterThanOrEqual(600);
    // Done one-off jobs do not pile up.
    expect(await until(() => (store.db.prepare(`SELECT count(*) AS n FROM agenda_jobs WHERE name = 'test.queued'`).get() as { n: number }).n === 0, 2000)).toBe(true);
  });

  it('a schedule job runs at its tick, writes the log, and moves to the next tick', async () => {
    const s = await scheduler();
    const user = await store.users.create({ name: 'u', email: 'u@example.test', premium: true, created_at: 0, updated_at: 0 });
    const sched = await storeSchedule(store, user.id, `${base}/tick`, '* * * * * *');
    await s.plan(sched);
    await s.start();
    expect(await until(async () => (await store.schedules.listLogs(sched.id, { sorting: 'oldest', page: 1, perPage: 10 })).total >= 2, 5000)).toBe(true);
    const job = store.db.prepare('SELECT next_run_at, locked_at FROM agenda_jobs WHERE name = ?').get(JOBS.schedule) as { next_run_at: number };
    expect(job.next_run_at % 1000).toBe(0);
    expect((await store.schedules.get(sched.id))!.last_status).toBe(200);
  });

  it('the job of a deleted schedule removes itself; sync plans missing jobs and drops orphans', async () => {
    const s = await scheduler({}, { process: false });
    const user = await store.users.create({ name: 'u', email: 'u@example.test', premium: true, created_at: 0, updated_at: 0 });
    const a = await storeSchedule(store, user.id, `${base}/tick`, '0 0 1 1 *');
    const b = await storeSchedule(store, user.id, `${base}/tick`, '0 0 1 1 *');
    expect(await s.sync()).toEqual({ planned: 2, removed: 0 });
    expect(await s.sync()).toEqual({ planned: 0, removed: 0 });
    await store.schedules.delete(b.id);
    expect(await s.sync()).toEqual({ planned: 0, removed: 1 });
    const rows = store.db.prepare('SELECT data FROM agenda_jobs WHERE name = ?').all(JOBS.schedule) as Array<{ data: string }>;
    expect(rows.map((r) => JSON.parse(r.data))).toEqual([{ scheduleId: a.id }]);
    // A job whose schedule vanished between sync and run cancels itself when it runs.
    await store.schedules.delete(a.id);
    store.db.prepare('UPDATE agenda_jobs SET next_run_at = ?').run(Date.now() - 1000);
    const runner = await scheduler();
    await runner.start();
    expect(await until(() => (store.db.prepare('SELECT count(*) AS n FROM agenda_jobs WHERE name = ?').get(JOBS.schedule) as { n: number }).n === 0, 3000)).toBe(true);
    expect(hits).toEqual([]);
  });

  it('Agenda loads only when there is work: until then cleanup is a timer, and a job queued by another process loads it', async () => {
    const file = path.join(tmp, 'lazy.sqlite');
    const s1 = createSqliteStore(file);
    const s2 = createSqliteStore(file);
    let calls = 0;
    const ran: unknown[] = [];
    const a = await createScheduler({ store: s1, clock: systemClock, logger: silentLogger, http: outbound, cleanup: async () => void calls++ }, { processEvery: 100, cleanupEveryMs: 200 });
    // An API-only process: writes jobs, runs none (and no cleanup).
    const b = await createScheduler({ store: s2, clock: systemClock, logger: silentLogger, http: outbound }, { processEvery: 100, process: false });
    try {
      a.jobs.define('test.elsewhere', async (data) => void ran.push(data));
      await a.start();
      await b.start();
      expect(await a.sync()).toEqual({ planned: 0, removed: 0 });
      await sleep(700);
      expect(a.loaded).toBe(false);
      expect(b.loaded).toBe(false);
      expect(() => a.agenda).toThrow(/not loaded/);
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(s1.db.prepare('SELECT count(*) AS n FROM agenda_jobs').get()).toEqual({ n: 0 });
      await b.jobs.enqueue('test.elsewhere', { from: 'b' }, Date.now());
      expect(b.loaded).toBe(true);
      expect(await until(() => ran.length === 1, 3000)).toBe(true);
      expect(ran).toEqual([{ from: 'b' }]);
      expect(a.loaded).toBe(true);
    } finally {
      await a.stop();
      await b.stop();
      await s1.close();
      await s2.close();
    }
  });

  it('token cleanup is one recurring Agenda job once Agenda runs, run by one process at a time', async () => {
    const file = path.join(tmp, 'cleanup.sqlite');
    const s1 = createSqliteStore(file);
    const s2 = createSqliteStore(file);
    let calls = 0;
    const cleanup = async () => {
      calls++;
    };
    const a = await createScheduler({ store: s1, clock: systemClock, logger: silentLogger, http: outbound, cleanup }, { processEvery: 100, cleanupEveryMs: 500 });
    const b = await createScheduler({ store: s2, clock: systemClock, logger: silentLogger, http: outbound, cleanup }, { processEvery: 100, cleanupEveryMs: 500 });
    // A queued job: Agenda has work, so both processes load it (without any, cleanup is a timer: below).
    await a.jobs.enqueue('test.later', {}, Date.now() + 3_600_000);
    await a.start();
    await b.start();
    await sleep(2300);
    await a.stop();
    await b.stop();
    const rows = s1.db.prepare('SELECT type, repeat_interval FROM agenda_jobs WHERE name = ?').all(JOBS.cleanup);
    expect(rows).toEqual([{ type: 'single', repeat_interval: '500' }]);
    // Every 500 ms over ~2.3 s: about 4 runs in all, not 4 per process.
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(calls).toBeLessThanOrEqual(6);
    await s1.close();
    await s2.close();
  });
});

describe('the scheduler module', () => {
  it('deletes expired tokens through the cleanup (a timer until Agenda has work, then its job)', async () => {
    const t = await startTestServer({}, { modules: [createSchedulerModule({ cleanupEveryMs: 300, processEvery: 100 })] });
    try {
      const u = await t.user(true);
      const token = await t.token({ expiry: 1 }, u.key);
      expect((await t.call('GET', `/token/${token.uuid}`, { key: u.key })).status).toBe(200);
      expect(await until(async () => (await t.call('GET', `/token/${token.uuid}`, { key: u.key })).status === 404, 5000, 200)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('with SCHEDULER_ENABLED=false the API works and jobs are written but not run', async () => {
    const t = await startTestServer({ SCHEDULER_ENABLED: 'false' }, { modules: [createSchedulerModule({ processEvery: 100 })] });
    try {
      const u = await t.user(true);
      const c = await t.call('POST', '/schedules', { key: u.key, json: { interval: '1-minute', request_url: `${base}/tick` } });
      expect(c.status).toBe(200);
      expect((await t.call('POST', `/schedules/${c.data.id}/run-now`, { key: u.key })).data.response_status).toBe(200);
      const jobs = t.provided.get(JOBS_KEY)!;
      let ran = false;
      jobs.define('test.not-here', async () => void (ran = true));
      await jobs.enqueue('test.not-here', {}, Date.now());
      await sleep(500);
      expect(ran).toBe(false);
      const { scheduler } = t.provided.get(SCHEDULES)!;
      expect((await scheduler.agenda.queryJobs({ names: [JOBS.schedule, 'test.not-here'] })).total).toBe(2);
    } finally {
      await t.close();
    }
  });

  it('exposes the job queue to other modules', async () => {
    const t = await startTestServer({}, { modules: [createSchedulerModule({ processEvery: 100 })] });
    try {
      const jobs = t.provided.get(JOBS_KEY)!;
      const got: unknown[] = [];
      jobs.define('test.from-module', async (data) => void got.push(data));
      await jobs.enqueue('test.from-module', { hello: 'world' }, Date.now());
      expect(await until(() => got.length === 1, 3000)).toBe(true);
      expect(got).toEqual([{ hello: 'world' }]);
    } finally {
      await t.close();
    }
  });
});

describe('schedule documents from workflows/', () => {
  let store: ReturnType<typeof createSqliteStore>;
  let service: ScheduleService;
  let planned: number[];
  beforeEach(async () => {
    store = createSqliteStore(':memory:');
    planned = [];
    service = new ScheduleService(store, systemClock, { plan: async (s) => void planned.push(s.id), unplan: async () => undefined });
    await store.users.create({ name: 'ops', email: 'ops@example.test', premium: true, created_at: 0, updated_at: 0 });
  });
  afterEach(async () => store.close());

  const yaml = (interval: string, extra = '') => `apiVersion: capture/v1
kind: Schedule
metadata:
  name: status page
  owner: OPS@example.test
spec:
  interval: ${interval}
  request:
    url: https://status.example.test/health
    headers: ["Accept: application/json"]
${extra}`;

  it('applies Schedule documents idempotently, updates changed ones, and leaves other kinds alone', async () => {
    fs.writeFileSync(path.join(tmp, 'status.yaml'), yaml('hourly'));
    fs.writeFileSync(path.join(tmp, 'actions.yaml'), 'apiVersion: capture/v1\nkind: TokenActions\nmetadata: {token: x}\nspec: {steps: []}\n');
    fs.writeFileSync(path.join(tmp, 'notes.txt'), 'not a workflow');
    expect(await service.applyDirectory(tmp)).toEqual({ created: 1, updated: 0, unchanged: 0, failed: [] });
    expect(await service.applyDirectory(tmp)).toEqual({ created: 0, updated: 0, unchanged: 1, failed: [] });
    const [s] = (await store.schedules.list({ userIds: [1] }, 1, 10)).items;
    expect(s).toMatchObject({ user_id: 1, source: 'file:status.yaml#status page' });
    expect(s!.document).toMatchObject({ metadata: { name: 'status page' }, spec: { interval: 'hourly', request: { method: 'GET', timeout: 5, headers: ['Accept: application/json'] } } });
    expect((s!.document as { metadata: Record<string, unknown> }).metadata.owner).toBeUndefined();
    fs.writeFileSync(path.join(tmp, 'status.yaml'), yaml('daily'));
    expect(await service.applyDirectory(tmp)).toEqual({ created: 0, updated: 1, unchanged: 0, failed: [] });
    expect((await store.schedules.get(s!.id))!.document).toMatchObject({ spec: { interval: 'daily' } });
    expect(planned).toEqual([s!.id, s!.id]);
  });

  it('reports documents it cannot apply and goes on with the others', async () => {
    fs.writeFileSync(path.join(tmp, 'a-bad-interval.yaml'), yaml('yearly'));
    fs.writeFileSync(path.join(tmp, 'b-no-owner.yaml'), yaml('daily').replace('  owner: OPS@example.test\n', ''));
    fs.writeFileSync(path.join(tmp, 'c-unknown-owner.yaml'), yaml('daily').replace('OPS@', 'nobody@'));
    fs.writeFileSync(path.join(tmp, 'd-typo.yaml'), yaml('daily', '  intreval: 5\n'));
    fs.writeFileSync(path.join(tmp, 'e-broken.yaml'), 'kind: [');
    fs.writeFileSync(path.join(tmp, 'f-good.yml'), yaml('weekly'));
    const r = await service.applyDirectory(tmp);
    expect(r.created).toBe(1);
    expect(r.failed.map((f) => f.file)).toEqual(['a-bad-interval.yaml', 'b-no-owner.yaml', 'c-unknown-owner.yaml', 'd-typo.yaml', 'e-broken.yaml']);
    expect(r.failed[0]!.error).toMatch(/spec\.interval/);
    expect(r.failed[1]!.error).toMatch(/metadata\.owner is required/);
    expect(r.failed[2]!.error).toMatch(/no user "nobody@example.test"/);
    expect(r.failed[3]!.error).toMatch(/additional/i);
  });

  it("a document's metadata.group_id puts the schedule in a group of the owner's team; changing it is a change", async () => {
    const mine = await store.groups.create({ user_id: 1, name: 'Ops', created_at: 0, updated_at: 0 });
    const stranger = await store.users.create({ name: 'x', email: 'x@example.test', premium: false, created_at: 0, updated_at: 0 });
    const theirs = await store.groups.create({ user_id: stranger.id, name: 'Theirs', created_at: 0, updated_at: 0 });
    const withGroup = (id: number) => yaml('hourly').replace('  owner: OPS@example.test\n', `  owner: OPS@example.test\n  group_id: ${id}\n`);
    fs.writeFileSync(path.join(tmp, 'status.yaml'), withGroup(mine.id));
    expect(await service.applyDirectory(tmp)).toMatchObject({ created: 1, failed: [] });
    const [s] = (await store.schedules.list({ userIds: [1] }, 1, 10)).items;
    expect(s!.group_id).toBe(mine.id);
    expect((s!.document as { metadata: Record<string, unknown> }).metadata.group_id).toBeUndefined();
    expect((await service.exportDocument(s!)).metadata).toMatchObject({ owner: 'ops@example.test', group_id: mine.id });
    expect(await service.applyDirectory(tmp)).toMatchObject({ unchanged: 1 });
    fs.writeFileSync(path.join(tmp, 'status.yaml'), yaml('hourly'));
    expect(await service.applyDirectory(tmp)).toMatchObject({ updated: 1 });
    expect((await store.schedules.get(s!.id))!.group_id).toBeNull();
    fs.writeFileSync(path.join(tmp, 'status.yaml'), withGroup(theirs.id));
    const refused = await service.applyDirectory(tmp);
    expect(refused.failed.map((f) => f.error)).toEqual([expect.stringMatching(/group_id/)]);
  });

  it('the example document in examples/schedules is valid', async () => {
    const dir = path.join(here, '..', '..', 'examples', 'schedules');
    for (const f of fs.readdirSync(dir)) {
      const [doc] = parseDocuments(fs.readFileSync(path.join(dir, f), 'utf8'));
      expect(normaliseScheduleDocument(doc).kind).toBe('Schedule');
    }
  });

  it('a missing folder is no error', async () => {
    expect(await service.applyDirectory(path.join(tmp, 'nope'))).toEqual({ created: 0, updated: 0, unchanged: 0, failed: [] });
  });

  it('the module applies the folder at start-up and plans the jobs', async () => {
    const dir = path.join(tmp, 'wf');
    fs.mkdirSync(dir);
    const env = { DATA_DIR: path.join(tmp, 'data') };
    const mod = () => createSchedulerModule({ workflowsDir: dir, processEvery: 100 });
    const first = await startTestServer(env, { modules: [mod()] });
    let key: string;
    try {
      key = (await first.user(true)).key;
    } finally {
      await first.close();
    }
    // The document names the user created above; it is applied on the next start.
    fs.writeFileSync(path.join(dir, 'status.yaml'), yaml('hourly').replace('OPS@example.test', 'u1@example.test'));
    for (let start = 0; start < 2; start++) {
      const t = await startTestServer(env, { modules: [mod()] });
      try {
        const list = await t.call('GET', '/schedules', { key });
        expect(list.data.data.map((x: { name: string; interval: string }) => [x.name, x.interval])).toEqual([['status page', 'hourly']]);
        const { scheduler } = t.provided.get(SCHEDULES)!;
        const jobs = await scheduler.agenda.queryJobs({ name: JOBS.schedule });
        expect(jobs.jobs.map((j) => j.data)).toEqual([{ scheduleId: list.data.data[0].id }]);
      } finally {
        await t.close();
      }
    }
  });
});
