// Request lists, searches and bulk deletions run on reader threads, so captures
// keep answering while a search reads 100,000 rows and a 100,000-row delete runs. The real service
// on port 0 over a file database, seeded through the store's connection (big transactions).
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../../../../test/helpers/server.js';
import { parseQuery } from '../../../query/index.js';
import Database from 'better-sqlite3';
import { createSqliteStore } from '../../index.js';
import { readerPool } from './reader-pool.js';
import { schedPolicy, SCHED_IDLE } from '../threads.js';
import { planFilters, planList } from './request-reads.js';

const ROWS = 100_000;
const MEASURE_MS = 15_000;
const dir = mkdtempSync(join(tmpdir(), 'reader-pool-'));
const file = join(dir, 'capture.sqlite');
const bigToken = randomUUID();

const bodyOf = (i: number) => `order ord-${i} status ${i % 3 ? 'paid' : 'failed'} from customer${i % 5003}@example.com`;

/** ROWS requests in `bigToken`, stored behind the writer's back: the next store's catch-up indexes them. */
async function seed(): Promise<void> {
  const store = createSqliteStore(file, { writer: 'in-thread' });
  const now = Date.now();
  await store.tokens.create({
    uuid: bigToken,
    user_id: null,
    alias: null,
    redirect: false,
    actions: false,
    cors: false,
    expiry: null,
    timeout: 0,
    listen: 0,
    premium: false,
    premium_expires_at: null,
    ip: '127.0.0.1',
    user_agent: 'test',
    default_content: '',
    default_status: 200,
    default_content_type: 'text/plain',
    request_limit: ROWS,
    description: null,
    group_id: null,
    password_hash: null,
    created_at: now,
    updated_at: now,
    expires_at: null,
    team_id: null,
  });
  const insert = store.db.prepare(`INSERT INTO requests (uuid, token_id, type, team_id, ip, hostname, method, user_agent, url, content_type,
    body, size, query, headers, form, files, output, errors, time, note, sorting, created_at, updated_at, extra)
    VALUES (?, ?, 'web', NULL, '10.0.0.1', 'localhost', ?, 'curl/8', 'http://localhost/', 'text/plain', ?, ?, NULL, ?, NULL, '[]', '[]', '[]', 0.001, NULL, ?, ?, ?, '{}')`);
  const batch = store.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const body = Buffer.from(bodyOf(i));
      const headers = i % 50 === 0 ? `{"content-type":["text/plain"],"x-trace":["t${i}"]}` : '{"content-type":["text/plain"]}';
      const created = now - (ROWS - i) * 1000;
      insert.run(randomUUID(), bigToken, i % 2 ? 'POST' : 'GET', body, body.length, headers, 1_700_000_000_000_000 + i, created, created);
    }
  });
  for (let i = 0; i < ROWS; i += 25_000) batch(i, Math.min(ROWS, i + 25_000));
  await store.close();
}

/** `workers` loops POSTing captures to `url` until `until` resolves; each capture's latency in ms. */
async function capturesUntil(url: string, workers: number, until: Promise<unknown>): Promise<{ ms: number[]; failed: number }> {
  let done = false;
  void until.finally(() => (done = true));
  const ms: number[] = [];
  let failed = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!done) {
        const t0 = performance.now();
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"n":1}' });
        await res.arrayBuffer();
        ms.push(performance.now() - t0);
        if (res.status !== 200) failed++;
      }
    }),
  );
  return { ms, failed };
}

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * q) / 100))]!;

describe('reader threads (file database, real service)', () => {
  let server: TestServer;
  let captureUrl: string;

  beforeAll(async () => {
    await seed();
    server = await startTestServer({ DATA_DIR: dir, MAX_REQUEST_LIMIT: '1000000' });
    captureUrl = `${server.url}/${(await server.token()).uuid}`;
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists and searches on a reader thread give the rows, bodies and totals', async () => {
    const page = await server.call('GET', `/token/${bigToken}/requests?sorting=newest&per_page=2`, { key: ADMIN_KEY });
    expect(page.status).toBe(200);
    expect(page.data.total).toBe(ROWS);
    expect(page.data.data.map((r: { content: string }) => r.content)).toEqual([bodyOf(ROWS - 1), bodyOf(ROWS - 2)]);
    const traced = await server.call('GET', `/token/${bigToken}/requests?query=${encodeURIComponent('_exists_:headers.x-trace')}&per_page=1`, { key: ADMIN_KEY });
    expect(traced.data.total).toBe(ROWS / 50);
    // A bad search still fails as the API's 422, before any thread is asked.
    const bad = await server.call('GET', `/token/${bigToken}/requests?query=${encodeURIComponent('created_at:[now-1x TO now]')}`, { key: ADMIN_KEY });
    expect(bad.status).toBe(422);
  });

  it('captures keep answering while a search reads every row and a 100,000-row delete runs', async () => {
    const alone = await capturesUntil(captureUrl, 4, new Promise((r) => setTimeout(r, 2_000)));

    let searching = true;
    const searches: number[] = [];
    const searchLoop = (async () => {
      while (searching) {
        const t0 = performance.now();
        const r = await server.call('GET', `/token/${bigToken}/requests?query=${encodeURIComponent('NOT content:zzz')}&per_page=50`, { key: ADMIN_KEY });
        expect(r.status).toBe(200);
        searches.push(performance.now() - t0);
      }
    })();
    const t0 = performance.now();
    const deleting = server.call('DELETE', `/token/${bigToken}/requests`, { key: ADMIN_KEY }).then((r) => ({ status: r.status, ms: performance.now() - t0 }));
    // Measured while the delete runs (at most MEASURE_MS of it, on a busy machine it takes longer).
    const loaded = await capturesUntil(captureUrl, 4, Promise.race([deleting, new Promise((r) => setTimeout(r, MEASURE_MS))]));
    searching = false;
    await searchLoop;
    const deleted = await deleting;

    const report = (m: { ms: number[] }) => `${m.ms.length} captures, p50 ${p(m.ms, 50).toFixed(1)} ms, p99 ${p(m.ms, 99).toFixed(1)} ms, max ${Math.max(...m.ms).toFixed(1)} ms`;
    console.log(`alone: ${report(alone)}; under searches (${searches.length}, median ${p(searches, 50).toFixed(0)} ms) and the delete (${deleted.ms.toFixed(0)} ms): ${report(loaded)}`);
    expect(deleted.status).toBe(204);
    expect(alone.failed + loaded.failed).toBe(0);
    expect(searches.length).toBeGreaterThan(0);
    // Generous bounds, scaled by how busy the shared machine is right now (alone, captures took
    // up to 190 ms at a load average of 19): on the event loop, each search held every capture for
    // its whole length (hundreds of ms) and the delete for seconds.
    expect(loaded.ms.length).toBeGreaterThan(50);
    expect(p(loaded.ms, 99)).toBeLessThan(Math.max(250, 3 * p(alone.ms, 99)));
    const stats = await server.call('GET', `/token/${bigToken}/requests?per_page=1`, { key: ADMIN_KEY });
    expect(stats.data.total).toBe(0);
  }, 120_000);
});

/** The niceness of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

/** How many threads of this process are in the idle scheduling class. */
const idleThreads = (): number => readdirSync('/proc/self/task').filter((tid) => schedPolicy(Number(tid)) === SCHED_IDLE).length;
const hasChrt = (() => {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(process.platform !== 'linux')('reader thread priority (Linux: per-thread niceness)', () => {
  it('runs the reader threads at niceness 19 by default, or as configured, and leaves the event loop as it was', async () => {
    const d = mkdtempSync(join(tmpdir(), 'reader-pool-nice-'));
    try {
      for (const [opts, want] of [
        [{}, 19],
        [{ readerNice: 7 }, 7],
      ] as const) {
        const store = createSqliteStore(join(d, `n${want}.sqlite`), { writer: 'in-thread', ...opts });
        const before = threadNiceness().filter((n) => n === want).length;
        await store.requests.list(randomUUID(), { sorting: 'oldest', page: 1, perPage: 1 });
        expect(threadNiceness().filter((n) => n === want).length).toBe(before + 1);
        await store.close();
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it.skipIf(!hasChrt)('puts the reader threads at niceness 19 in the idle class, the deleting thread and the event loop not (needs chrt, util-linux)', async () => {
    const d = mkdtempSync(join(tmpdir(), 'reader-pool-idle-'));
    try {
      const idleBefore = idleThreads();
      expect(schedPolicy(Number(readlinkSync('/proc/thread-self').split('/').pop()))).not.toBe(SCHED_IDLE);
      const store = createSqliteStore(join(d, 'idle.sqlite'), { writer: 'in-thread' });
      await store.requests.list(randomUUID(), { sorting: 'oldest', page: 1, perPage: 1 });
      expect(idleThreads()).toBe(idleBefore + 1);
      // The deleting thread holds the write lock a chunk at a time: it keeps the normal class.
      await store.requests.deleteMany(randomUUID(), {});
      expect(idleThreads()).toBe(idleBefore + 1);
      await store.close();
      const niced = createSqliteStore(join(d, 'niced.sqlite'), { writer: 'in-thread', readerNice: 10 });
      await niced.requests.list(randomUUID(), { sorting: 'oldest', page: 1, perPage: 1 });
      expect(idleThreads()).toBe(idleBefore);
      await niced.close();
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

/** A file store (in-thread writer) with `rows` requests in one token, caught up; half of them POSTs unless `methodOf` says. */
async function storeWith(rows: number, methodOf = (i: number) => (i % 2 ? 'POST' : 'GET')) {
  const d = mkdtempSync(join(tmpdir(), 'reader-pool-main-'));
  const f = join(d, 'capture.sqlite');
  const store = createSqliteStore(f, { writer: 'in-thread' });
  const token = randomUUID();
  const now = Date.now();
  await store.tokens.create({
    uuid: token,
    user_id: null,
    alias: null,
    redirect: false,
    actions: false,
    cors: false,
    expiry: null,
    timeout: 0,
    listen: 0,
    premium: false,
    premium_expires_at: null,
    ip: '127.0.0.1',
    user_agent: 'test',
    default_content: '',
    default_status: 200,
    default_content_type: 'text/plain',
    request_limit: 10_000,
    description: null,
    group_id: null,
    password_hash: null,
    created_at: now,
    updated_at: now,
    expires_at: null,
    team_id: null,
  });
  for (let i = 0; i < rows; i++) {
    void store.requests.insert(
      {
        uuid: randomUUID(),
        token_id: token,
        type: 'web',
        team_id: null,
        ip: '10.0.0.1',
        hostname: 'h',
        method: methodOf(i),
        user_agent: 'a',
        url: 'http://h/',
        content_type: 'text/plain',
        body: Buffer.from(`b${i}`),
        size: 2,
        query: null,
        headers: {},
        form: null,
        files: [],
        custom_action_output: [],
        custom_action_errors: [],
        time: 0,
        note: null,
        sorting: now * 1000 + i,
        created_at: now,
        updated_at: now,
        extra: {},
      },
      10_000,
    );
  }
  await store.writer.sync();
  const cleanup = async () => {
    await store.close();
    rmSync(d, { recursive: true, force: true });
  };
  return { store, token, file: f, cleanup };
}

describe('reader pool', () => {
  it('starts no thread until asked, and stops a deletion after its chunk when closed', async () => {
    const { store, token, file: f, cleanup } = await storeWith(5_000, () => 'POST');
    try {
      const pool = readerPool(f, { walLimitBytes: 64 * 1024 * 1024, nice: 10 });
      expect(pool.threads).toBe(0);
      const page = await pool.list(planList(token, { sorting: 'oldest', page: 1, perPage: 3, query: parseQuery('method:POST') }));
      expect(pool.threads).toBe(1);
      expect(page.total).toBe(5_000);
      expect(page.items.map((r) => r.body)).toEqual([Buffer.from('b0'), Buffer.from('b1'), Buffer.from('b2')]);
      expect(Buffer.isBuffer(page.items[0]!.body)).toBe(true);
      const deleting = pool.deleteMatching(planFilters(token, {}));
      await new Promise((r) => setTimeout(r, 20));
      await pool.close();
      const deleted = await deleting;
      expect(deleted).toBeGreaterThan(0);
      expect(deleted).toBeLessThan(5_000);
      await expect(pool.list(planList(token, { sorting: 'oldest', page: 1, perPage: 1 }))).rejects.toThrow('closed');
      // The counter follows the chunks deleted, and the thread let go of the write lock: the main
      // connection writes at once.
      expect(store.db.prepare('SELECT request_count FROM tokens WHERE uuid = ?').pluck().get(token)).toBe(5_000 - deleted);
      store.db.pragma('busy_timeout = 0');
      expect(store.db.prepare('DELETE FROM requests WHERE token_id = ?').run(token).changes).toBe(5_000 - deleted);
    } finally {
      await cleanup();
    }
  });
});

describe("deletions on the event loop's connection (in-thread writer)", () => {
  const count = (db: Database.Database, token: string) => ({
    rows: db.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(token),
    counter: db.prepare('SELECT request_count FROM tokens WHERE uuid = ?').pluck().get(token),
  });

  it("deletes a filter's matches and a token's requests on the captures' connection, which sees no other connection commit", async () => {
    const { store, token, cleanup } = await storeWith(4_000);
    try {
      // PRAGMA data_version changes when another connection committed since it was last read: the
      // deletion's chunks did not (every such commit empties this connection's page cache).
      const version = () => store.db.pragma('data_version', { simple: true });
      const before = version();
      expect(await store.requests.deleteMany(token, { query: parseQuery('method:POST') })).toBe(2_000);
      expect(version()).toBe(before);
      expect(count(store.db, token)).toEqual({ rows: 2_000, counter: 2_000 });
      const left = await store.requests.list(token, { sorting: 'newest', page: 1, perPage: 1 });
      expect(left.items[0]!.method).toBe('GET');
      await store.tokens.delete(token);
      expect(version()).toBe(before);
      expect(count(store.db, token)).toEqual({ rows: 0, counter: undefined });
    } finally {
      await cleanup();
    }
  });

  it('waits for a write lock another connection holds without stalling the event loop, then deletes', async () => {
    const { store, token, file, cleanup } = await storeWith(2_000);
    const other = new Database(file);
    try {
      // The thread that reads the matches started (it takes a while), so the deletion meets the lock.
      expect(await store.requests.deleteMany(token, { query: parseQuery('method:PUT') })).toBe(0);
      other.exec('BEGIN IMMEDIATE');
      let longestGap = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const t = performance.now();
        longestGap = Math.max(longestGap, t - last);
        last = t;
      }, 5);
      const deleting = store.requests.deleteMany(token, { query: parseQuery('method:GET') });
      await new Promise((r) => setTimeout(r, 400));
      // Still waiting: nothing deleted while the other connection holds the lock.
      expect(other.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(token)).toBe(2_000);
      other.exec('COMMIT');
      expect(await deleting).toBe(1_000);
      clearInterval(ticker);
      // SQLite's busy handler would have slept through the 400 ms on the event loop.
      expect(longestGap).toBeLessThan(200);
      expect(count(store.db, token)).toEqual({ rows: 1_000, counter: 1_000 });
    } finally {
      other.close();
      await cleanup();
    }
  });
});
