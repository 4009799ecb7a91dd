// The capture writers of file stores (capture-writer.ts): in-thread (the default with synchronous
// NORMAL) and the writer thread (writer-worker.ts, the default with FULL).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../config.js';
import { NotFound } from '../../../../errors.js';
import { openStore } from '../../../index.js';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import type { RequestRecord } from '../../../types.js';
import { insertSql, PLAIN_COLUMNS, REQUEST_ROW, toRow } from '../columns.js';
import { workerWriter } from './capture-writer.js';
import { createSqliteStore } from '../../index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-writer-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tmp = () => path.join(dir, `w-${++n}.sqlite`);
const page = { page: 1, perPage: 1000, sorting: 'oldest' as const };

describe('sqlite capture writer choice', () => {
  it('commits in-thread with synchronous NORMAL, on the thread with FULL, as configured otherwise; in memory always in-thread', async () => {
    const stores = [
      createSqliteStore(tmp()),
      createSqliteStore(tmp(), { synchronous: 'FULL' }),
      createSqliteStore(tmp(), { writer: 'worker' }),
      createSqliteStore(tmp(), { synchronous: 'FULL', writer: 'in-thread' }),
      createSqliteStore(':memory:', { writer: 'worker' }),
    ];
    expect(stores.map((s) => s.writer.mode)).toEqual(['in-thread', 'worker', 'worker', 'in-thread', 'in-thread']);
    for (const s of stores) await s.close();
  });

  it('follows SQLITE_WRITER and SQLITE_SYNCHRONOUS from the configuration', async () => {
    const modes: string[] = [];
    for (const env of [{}, { SQLITE_SYNCHRONOUS: 'FULL' }, { SQLITE_WRITER: 'worker' }, { SQLITE_SYNCHRONOUS: 'FULL', SQLITE_WRITER: 'in-thread' }]) {
      const store = (await openStore(loadConfig({ DATA_DIR: fs.mkdtempSync(path.join(dir, 'cfg-')), ...env }))) as ReturnType<typeof createSqliteStore>;
      modes.push(store.writer.mode);
      await store.close();
    }
    expect(modes).toEqual(['in-thread', 'worker', 'worker', 'in-thread']);
  });
});

describe.each(['in-thread', 'worker'] as const)('sqlite capture writer (%s)', (writer) => {
  const open = (file: string) => createSqliteStore(file, { writer });

  it('reports every committed batch: its captures and its commit time', async () => {
    const store = open(tmp());
    const batches: Array<[number, number]> = [];
    store.writer.onCommit = (captures, seconds) => batches.push([captures, seconds]);
    const t = sampleToken();
    await store.tokens.create(t);
    await Promise.all([1, 2, 3].map(() => store.requests.insert(sampleRequest(t.uuid), 100)));
    await store.requests.insert(sampleRequest(t.uuid), 100);
    expect(batches.reduce((sum, [n]) => sum + n, 0)).toBe(4);
    expect(batches.every(([n, seconds]) => n > 0 && seconds >= 0 && seconds < 5)).toBe(true);
    await store.close();
  });

  it('rejects a capture for a deleted token with NotFound and keeps the others of its batch', async () => {
    const store = open(tmp());
    const kept = sampleToken();
    const gone = sampleToken();
    await store.tokens.create(kept);
    await store.tokens.create(gone);
    await store.tokens.delete(gone.uuid);
    const results = await Promise.allSettled([store.requests.insert(sampleRequest(kept.uuid), 100), store.requests.insert(sampleRequest(gone.uuid), 100), store.requests.insert(sampleRequest(kept.uuid), 100)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = (results[1] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(NotFound);
    expect((reason as Error).message).toBe('Token not found');
    expect((await store.tokens.stats(kept.uuid)).requests).toBe(2);
    await store.close();
  });

  it('keeps the order by sorting, bodies byte for byte, files, trimming and the latest request', async () => {
    const store = open(tmp());
    const t = sampleToken();
    await store.tokens.create(t);
    // Inserted out of order, over several turns, with bodies that are views of a shared pool.
    const pool = Buffer.alloc(4096, 7);
    const sortings = Array.from({ length: 300 }, (_, i) => 1000 + i).sort(() => Math.random() - 0.5);
    for (let chunk = 0; chunk < 3; chunk++) {
      await Promise.all(
        sortings.slice(chunk * 100, chunk * 100 + 100).map((s) => {
          const body = pool.subarray(s % 50, (s % 50) + 3);
          body.writeUInt16BE(s % 65536, 0);
          return store.requests.insert(sampleRequest(t.uuid, { sorting: s, body: Buffer.from(body), size: 3 }), 250, new Map([['f', Buffer.from(`file ${s}`)]]));
        }),
      );
    }
    const { items, total } = await store.requests.list(t.uuid, page);
    expect(total).toBe(250);
    expect(items.map((r) => r.sorting)).toEqual(Array.from({ length: 250 }, (_, i) => 1050 + i));
    for (const r of items) expect(r.body.readUInt16BE(0)).toBe(r.sorting);
    expect((await store.requests.getFile(t.uuid, items[0]!.uuid, 'f'))?.toString()).toBe(`file ${items[0]!.sorting}`);
    const latest = await store.requests.latest(t.uuid);
    expect(latest?.sorting).toBe(1299);
    const stats = await store.tokens.stats(t.uuid);
    expect(stats.requests).toBe(250);
    // Deletes on the main connection keep the counters right with the writer on another one.
    expect(await store.requests.deleteMany(t.uuid, {})).toBe(250);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(0);
    await store.close();
  });

  it('stores a plain capture (short row, defaults written by the INSERT) and every kind of full one alike', async () => {
    const store = open(tmp());
    const t = sampleToken();
    await store.tokens.create(t);
    const variants: Array<Partial<RequestRecord>> = [
      {},
      { team_id: 7 },
      { form: { a: 'b' } },
      { files: [{ id: 'f', filename: 'a.txt', name: 'file', content_type: 'text/plain', size: 1 }] },
      { custom_action_output: ['out'] },
      { custom_action_errors: [{ action: 1, message: 'x' }] },
      { note: 'n' },
      { extra: { k: 1 } },
    ];
    const records = variants.map((v) => sampleRequest(t.uuid, v));
    // A team's capture is plain too: team_id is in the row's head.
    expect(records.map((r) => toRow(r).length)).toEqual([PLAIN_COLUMNS, PLAIN_COLUMNS, ...Array(variants.length - 2).fill(REQUEST_ROW.columns.length)]);
    await Promise.all(records.map((r) => store.requests.insert(r, 100)));
    for (const r of records) expect(await store.requests.get(t.uuid, r.uuid)).toEqual(r);
    await store.close();
  });

  it('stores a long batch of plain captures with full ones among them, in the order queued', async () => {
    const file = tmp();
    const store = open(file);
    const t = sampleToken();
    await store.tokens.create(t);
    // 45 plain rows (runs of 32, 8, 4, 1 rows a statement), broken by a full row and by one with a file.
    const records = Array.from({ length: 47 }, (_, i) =>
      sampleRequest(t.uuid, i === 20 ? { note: 'full' } : i === 30 ? { files: [{ id: 'f1', filename: 'a.txt', name: 'file', content_type: 'text/plain', size: 1 }] } : {}),
    );
    await Promise.all(records.map((r, i) => store.requests.insert(r, 100, i === 30 ? new Map([['f1', Buffer.from('x')]]) : undefined)));
    for (const r of records) expect(await store.requests.get(t.uuid, r.uuid)).toEqual(r);
    await store.close();
    const raw = new Database(file, { readonly: true });
    const uuids = raw.prepare('SELECT uuid FROM requests ORDER BY seq').pluck().all();
    expect(uuids).toEqual(records.map((r) => r.uuid));
    expect(raw.prepare('SELECT request_uuid FROM request_files').pluck().all()).toEqual([records[30]!.uuid]);
    raw.close();
  });

  it('commits everything queued before close() resolves', async () => {
    const file = tmp();
    const store = open(file);
    const t = sampleToken();
    await store.tokens.create(t);
    const pending = Array.from({ length: 500 }, () => store.requests.insert(sampleRequest(t.uuid), 10_000));
    await store.close();
    await Promise.all(pending);
    const raw = new Database(file, { readonly: true });
    expect((raw.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n).toBe(500);
    raw.close();
  });

  it('keeps every acknowledged capture when the process is killed (SIGKILL)', async () => {
    const file = tmp();
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./test/capture-child.ts', import.meta.url)), file, writer], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked: string[] = [];
    let tokenId = '';
    let rest = '';
    await new Promise<void>((resolve, reject) => {
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited: ${code}`))));
      child.stdout!.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          if (line.startsWith('token ')) tokenId = line.slice(6);
          else if (line.startsWith('ack ')) acked.push(line.slice(4));
        }
        if (acked.length >= 3000 && !child.killed) child.kill('SIGKILL');
      });
    });
    expect(acked.length).toBeGreaterThanOrEqual(3000);
    const raw = new Database(file);
    const has = raw.prepare('SELECT 1 FROM requests WHERE token_id = ? AND uuid = ?');
    const lost = acked.filter((uuid) => !has.get(tokenId, uuid));
    raw.close();
    expect(lost).toEqual([]);
  }, 30_000);
});

describe('sqlite capture writer thread', () => {
  it('rejects what a crashed thread had not acknowledged and falls back to the main connection', async () => {
    const store = createSqliteStore(tmp(), { writer: 'worker' });
    const t = sampleToken();
    await store.tokens.create(t);
    await store.requests.insert(sampleRequest(t.uuid), 10_000);
    const w = store.writer as ReturnType<typeof workerWriter>;
    const during = Array.from({ length: 50 }, () => store.requests.insert(sampleRequest(t.uuid), 10_000));
    w.crashForTesting();
    const settled = await Promise.allSettled(during);
    for (const s of settled) if (s.status === 'rejected') expect(String(s.reason)).toMatch(/writer thread stopped/);
    await new Promise((r) => setTimeout(r, 50));
    expect(store.writer.mode).toBe('in-thread');
    await store.requests.insert(sampleRequest(t.uuid), 10_000);
    const stored = (await store.requests.list(t.uuid, page)).total;
    expect(stored).toBeGreaterThanOrEqual(2 + settled.filter((s) => s.status === 'fulfilled').length);
    await store.close();
  });
});

describe('sqlite capture writer thread priority', () => {
  it('runs the writer thread niced (10 by default) and leaves the event loop as it was', async () => {
    const before = os.getPriority();
    const store = createSqliteStore(tmp(), { writer: 'worker' });
    const { nice } = await (store.writer as ReturnType<typeof workerWriter>).started;
    // Linux lets a thread nice itself; elsewhere the thread runs as the event loop does.
    if (process.platform === 'linux') expect(nice).toBe(10);
    else expect(nice).toBeNull();
    expect(os.getPriority()).toBe(before);
    await store.close();
    const plain = createSqliteStore(tmp(), { writer: 'worker', writerNice: 0 });
    expect((await (plain.writer as ReturnType<typeof workerWriter>).started).nice).toBeNull();
    await plain.close();
  });
});

describe('sqlite in-thread capture writer, reads of one token', () => {
  const keys = (db: Database.Database, tk: string) => db.prepare('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)').pluck().get(tk) as number;

  it('do not force a catch-up for the captures of other tokens, and do for their own or when another connection stored rows', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer: 'in-thread' });
    const [a, b] = [sampleToken(), sampleToken()];
    await store.tokens.create(a);
    await store.tokens.create(b);
    await store.requests.insert(sampleRequest(a.uuid, { sorting: 1 }), 100);
    await store.writer.sync();
    // B's captures wait for the schedule's catch-up (200 ms): a read of A does not take them.
    await Promise.all(Array.from({ length: 5 }, (_, i) => store.requests.insert(sampleRequest(b.uuid, { sorting: 10 + i }), 100)));
    await store.writer.sync(a.uuid);
    expect(keys(store.db, b.uuid)).toBe(0);
    expect((await store.tokens.stats(a.uuid)).requests).toBe(1);
    expect(keys(store.db, b.uuid)).toBe(0);
    expect((await store.requests.list(a.uuid, page)).total).toBe(1);
    // A read of B catches them up.
    expect((await store.requests.list(b.uuid, page)).total).toBe(5);
    expect(keys(store.db, b.uuid)).toBe(5);

    // A capture of A among others' waits for a read of A.
    await store.requests.insert(sampleRequest(b.uuid, { sorting: 20 }), 100);
    await store.requests.insert(sampleRequest(a.uuid, { sorting: 2 }), 100);
    expect((await store.requests.list(a.uuid, page)).total).toBe(2);

    // A row another connection stored (another process on the file) among this writer's: it
    // cannot tell whose it is, so a read of any token catches up.
    await store.writer.sync();
    const other = new Database(file);
    other.pragma('busy_timeout = 5000');
    const row = toRow(sampleRequest(a.uuid, { sorting: 3 }));
    other.prepare(insertSql(row.length === PLAIN_COLUMNS)).run(row);
    other.close();
    await store.requests.insert(sampleRequest(b.uuid, { sorting: 21 }), 100);
    await store.writer.sync(a.uuid);
    expect(keys(store.db, a.uuid)).toBe(3);
    expect((await store.requests.list(a.uuid, page)).total).toBe(3);
    await store.close();
  });
});

describe('sqlite in-thread capture writer while another connection holds the write lock', () => {
  /** The longest gap between the ticks of a 2 ms interval while `during` runs: how long the event loop stalled. */
  async function longestStall<T>(during: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
    let last = performance.now();
    let stallMs = 0;
    const tick = setInterval(() => {
      const t = performance.now();
      stallMs = Math.max(stallMs, t - last);
      last = t;
    }, 2);
    try {
      return { value: await during(), stallMs };
    } finally {
      clearInterval(tick);
    }
  }
  const holdLock = (file: string, ms: number) => {
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        other.close();
        resolve();
      }, ms),
    );
  };

  it('keeps the event loop turning, commits every capture once the lock is free, in order, none acknowledged before', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer: 'in-thread' });
    const t = sampleToken();
    await store.tokens.create(t);
    // Committed, not caught up yet: the read below needs the catch-up, which needs the lock too.
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.requests.insert(sampleRequest(t.uuid, { sorting: i }), 10_000)));
    const { value, stallMs } = await longestStall(async () => {
      // A loop blocked on the lock would stall for the whole hold; the bound sits well below it, since
      // committing the 300 queued captures at once takes a while on a loaded CI machine (140 ms seen).
      const released = holdLock(file, 800);
      let releasedAt = 0;
      void released.then(() => (releasedAt = performance.now()));
      const acked: number[] = [];
      const captures = Array.from({ length: 200 }, (_, i) => store.requests.insert(sampleRequest(t.uuid, { sorting: 20 + i }), 10_000).then(() => acked.push(performance.now())));
      // More arrive while the first ones wait: they join the queue behind them.
      await new Promise((r) => setTimeout(r, 100));
      captures.push(...Array.from({ length: 100 }, (_, i) => store.requests.insert(sampleRequest(t.uuid, { sorting: 220 + i }), 10_000).then(() => acked.push(performance.now()))));
      const stats = store.tokens.stats(t.uuid);
      await Promise.all(captures);
      return { acked, releasedAt, stats: await stats };
    });
    expect(stallMs).toBeLessThan(400);
    expect(value.acked).toHaveLength(300);
    expect(Math.min(...value.acked)).toBeGreaterThanOrEqual(value.releasedAt);
    // The read waited for the catch-up, which waited for the lock: it sees the first 20 at least.
    expect(value.stats.requests).toBeGreaterThanOrEqual(20);
    const { items, total } = await store.requests.list(t.uuid, page);
    expect(total).toBe(320);
    const raw = new Database(file, { readonly: true });
    const bySeq = raw.prepare('SELECT sorting FROM requests ORDER BY seq').pluck().all();
    raw.close();
    expect(bySeq).toEqual(Array.from({ length: 320 }, (_, i) => i));
    expect(items.map((r) => r.sorting)).toEqual(Array.from({ length: 320 }, (_, i) => i));
    await store.close();
  });

  it('fails the captures with SQLITE_BUSY once the lock stays taken past busy_timeout (5 s), without stalling the loop', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer: 'in-thread' });
    const t = sampleToken();
    await store.tokens.create(t);
    const released = holdLock(file, 5_600);
    const { value, stallMs } = await longestStall(() => Promise.allSettled([store.requests.insert(sampleRequest(t.uuid), 10_000)]));
    expect(stallMs).toBeLessThan(100);
    expect(value[0]!.status).toBe('rejected');
    expect((value[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_BUSY');
    await released;
    // The next capture commits.
    await store.requests.insert(sampleRequest(t.uuid), 10_000);
    expect((await store.requests.list(t.uuid, page)).total).toBe(1);
    await store.close();
  }, 15_000);
});
