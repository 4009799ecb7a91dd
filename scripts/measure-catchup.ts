// Where a capture catch-up's time goes: seeds one big token (like measure-search.ts),
// then captures into small tokens at a steady rate on the in-thread writer's code (batch-writer.ts,
// catchUpSchedule) and logs every catch-up: its wall time (COMMIT included) and its parts ("rest":
// the wall time outside them, mostly the COMMIT).
// Usage: npx tsx scripts/measure-catchup.ts [seedRows=200000] [seconds=20] [capturesPerSecond=8000]
// REUSE=<file> measures on an already seeded file (KEEP=1 keeps the seeded one); TOKENS=<n> the small
// tokens (32); LIMIT=<n> their request_limit (500); RANDOM_TOKENS=1 sends each capture to a token at
// random (the tokens' oldest requests then drift apart, as with real clients) instead of in turn;
// FOREIGN, DELETE_AT, DELETE_ON, PERIODS and CACHE below.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sampleRequest, sampleToken } from '../core/store/store.contract.js';
import { toRow } from '../core/store/sqlite/requests/columns.js';
import { createBatchWriter, type CatchUpParts, type WriteItem } from '../core/store/sqlite/requests/writer/batch-writer.js';
import { catchUpSchedule } from '../core/store/sqlite/requests/writer/catch-up-schedule.js';
import { createSqliteStore } from '../core/store/sqlite/index.js';
import { parseQuery } from '../core/store/query/index.js';
import { uuidv7 } from '../core/util/uuid.js';
import { foreignCommits } from './foreign-commits.js';
import Database from 'better-sqlite3';
import { deleteMatching, pauseAfter } from '../core/store/sqlite/requests/readers/chunks.js';
import { planFilters } from '../core/store/sqlite/requests/readers/request-reads.js';
import { requestSeeder } from '../core/store/sqlite/requests/index.js';

const seedRows = Number(process.argv[2] ?? 200_000);
const seconds = Number(process.argv[3] ?? 20);
const rate = Number(process.argv[4] ?? 8_000);
const TOKENS = Number(process.env.TOKENS ?? 32);
const LIMIT = Number(process.env.LIMIT ?? 500);
// A folder only for a file seeded here (a REUSE run left an empty one behind each time).
const file = process.env.REUSE ?? join(mkdtempSync(join(tmpdir(), 'measure-catchup-')), 'capture.sqlite');

if (!process.env.REUSE) {
  const seeding = createSqliteStore(file, { writer: 'in-thread' });
  const big = sampleToken({ request_limit: seedRows });
  await seeding.tokens.create(big);
  // Rows behind the writer's back (the engine's seeder, built from the column table), caught up below.
  const seedRow = requestSeeder(seeding.db);
  const now = Date.now();
  const batch = seeding.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const body = Buffer.from(`order ord-${i} status ${['paid', 'failed'][i % 2]} from customer${i % 5003}@example.com`);
      const at = now - (seedRows - i) * 2_000;
      seedRow(
        sampleRequest(big.uuid, {
          uuid: uuidv7(at),
          ip: `10.0.${(i >> 8) & 255}.${i & 255}`,
          hostname: 'localhost',
          method: 'POST',
          user_agent: 'curl/8',
          url: `http://localhost/p/${i % 100}`,
          content_type: 'text/plain',
          body,
          size: body.length,
          query: { action: 'create' },
          headers: { 'content-type': ['text/plain'], 'x-trace': [`t${i}`] },
          time: 0.001,
          sorting: 1_700_000_000_000_000 + i,
          created_at: at,
          updated_at: at,
        }),
      );
    }
  });
  const t0 = performance.now();
  for (let i = 0; i < seedRows; i += 50_000) batch(i, Math.min(seedRows, i + 50_000));
  await seeding.close();
  await createSqliteStore(file, { writer: 'in-thread' }).close(); // catches the seed up (indexes)
  console.log(`seeded ${seedRows} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s${process.env.KEEP ? `: kept ${file}` : ''}`);
}

// The store's own connection (settings, checkpointer thread), with the in-thread writer's code on it
// (its own writer stays idle: these captures do not go through it).
const store = createSqliteStore(file, { writer: 'in-thread' });
const tokens = Array.from({ length: TOKENS }, () => sampleToken({ request_limit: LIMIT }));
for (const t of tokens) await store.tokens.create(t);
// CACHE=<n>: the connection's cache_size (SQLite's units: pages, or KiB when negative).
if (process.env.CACHE) store.db.pragma(`cache_size = ${process.env.CACHE}`);
const writer = createBatchWriter(store.db);

const log: Array<CatchUpParts & { wall: number; at: number }> = [];
/** Trim steps (in their own transactions when chunked): requests deleted, wall time. */
const trims: Array<{ rows: number; wall: number; at: number }> = [];
// The writer with its catch-ups and trim steps timed; every other member (the getters the
// schedule reads after each step included) read from the writer itself.
const timed: typeof writer = new Proxy(writer, {
  get(target, key) {
    if (key === 'catchUp')
      return (wait?: boolean, maxRows?: number, trimLater?: boolean, lastTrims?: number) => {
        const t = performance.now();
        const n = target.catchUp(wait, maxRows, trimLater, lastTrims);
        if (n) log.push({ ...target.lastCatchUp, wall: performance.now() - t, at: t });
        return n;
      };
    if (key === 'trim')
      return (wait?: boolean, maxRows?: number) => {
        const t = performance.now();
        const n = target.trim(wait, maxRows);
        if (n) trims.push({ rows: n, wall: performance.now() - t, at: t });
        return n;
      };
    const value = Reflect.get(target, key, target) as unknown;
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
});
const schedule = catchUpSchedule(timed, { waits: false, chunked: process.env.WHOLE !== '1' });
schedule.now(true); // whatever an earlier run left pending, not timed
log.length = 0;

// FOREIGN=<n>: another connection commits n times a second meanwhile (as a bulk deletion's chunks do).
const foreign = foreignCommits(file, Number(process.env.FOREIGN ?? 0));
// DELETE_AT=<s>: a filtered delete on the big token starts that far into the run, on the store's
// reader thread as in the service (DELETE_QUERY, default a tenth of the seeded rows).
const deleteAt = process.env.DELETE_AT ? Number(process.env.DELETE_AT) * 1000 : null;
let deleting: Promise<void> | null = null;
// DELETE_ON=main runs its chunks on this thread, on the store's own connection (the one the
// captures commit on), =conn on this thread on a connection of its own; both pause between chunks
// as the deleting thread does while captures are committed.
const deleteOn = process.env.DELETE_ON ?? 'thread';
const chunkWork: number[] = [];
const startDelete = () => {
  const big = store.db.prepare('SELECT uuid FROM tokens ORDER BY request_count DESC LIMIT 1').pluck().get() as string;
  const t0 = performance.now();
  const query = parseQuery(process.env.DELETE_QUERY ?? 'customer3*');
  const report = (n: number) => {
    const work = chunkWork.reduce((a, b) => a + b, 0);
    console.log(
      `deleted ${n} rows (${deleteOn}) from ${((t0 - start) / 1000).toFixed(1)} s to ${((performance.now() - start) / 1000).toFixed(1)} s${chunkWork.length ? `; ${chunkWork.length} chunks, ${work.toFixed(0)} ms of work, ${((work * 1000) / Math.max(n, 1)).toFixed(1)} us a row` : ''}`,
    );
  };
  if (deleteOn === 'thread') {
    deleting = store.requests.deleteMany(big, { query }).then(report);
    return;
  }
  const read = new Database(file, { readonly: true });
  const write = deleteOn === 'main' ? store.db : new Database(file);
  if (write !== store.db) write.pragma('busy_timeout = 5000');
  const pause = (workMs: number) => {
    chunkWork.push(workMs);
    return new Promise<boolean>((resolve) => setTimeout(() => resolve(true), pauseAfter(workMs, { capturing: true, busy: false })));
  };
  deleting = deleteMatching(read, write, planFilters(big, { query }), pause).then(report);
};

// Steady captures: every ms, the captures due since the start, one commit per event-loop turn.
const commits: number[] = [];
const loopGaps: number[] = [];
let sent = 0;
const start = performance.now();
let last = start;
await new Promise<void>((done) => {
  const tick = () => {
    const t = performance.now();
    loopGaps.push(t - last);
    last = t;
    if (t - start > seconds * 1000) return done();
    if (deleteAt !== null && !deleting && t - start >= deleteAt) startDelete();
    const due = Math.floor(((t - start) / 1000) * rate) - sent;
    if (due > 0) {
      const items: WriteItem[] = [];
      for (let i = 0; i < due; i++)
        items.push({
          row: toRow(sampleRequest(tokens[process.env.RANDOM_TOKENS ? Math.floor(Math.random() * TOKENS) : (sent + i) % TOKENS]!.uuid, { uuid: uuidv7(), body: Buffer.from(`capture ${sent + i} hello`) })),
          limit: LIMIT,
        });
      const c = performance.now();
      const n = writer.commit(items, false).length;
      commits.push(performance.now() - c);
      sent += n;
      if (n) schedule.committed(n);
    }
    setTimeout(tick, 1);
  };
  tick();
});
await foreign.stop();
await deleting;
const pendingLeft = store.db.prepare('SELECT count(*) FROM requests WHERE seq > (SELECT seq FROM request_watermark)').pluck().get();
const caughtDuring = log.reduce((a, l) => a + l.rows, 0);
schedule.now(true);
console.log(`pending at the end ${pendingLeft}, caught up during the run ${caughtDuring}`);

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : 0;
};
const row = (name: string, xs: number[]) =>
  console.log(
    `${name.padEnd(8)} p50 ${q(xs, 0.5).toFixed(1).padStart(6)}  p90 ${q(xs, 0.9).toFixed(1).padStart(6)}  p99 ${q(xs, 0.99).toFixed(1).padStart(6)}  max ${Math.max(0, ...xs)
      .toFixed(1)
      .padStart(6)}  sum ${(xs.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s`,
  );
console.log(`${sent} captures in ${seconds} s into ${TOKENS} tokens (limit ${LIMIT}) beside ${seedRows} rows; ${log.length} catch-ups (ms):`);
row(
  'rows',
  log.map((l) => l.rows),
);
for (const k of ['wall', 'keys', 'ids', 'text', 'purge', 'fill', 'trims'] as const)
  row(
    k,
    log.map((l) => l[k]),
  );
row(
  'rest',
  log.map((l) => l.wall - l.keys - l.ids - l.text - l.purge - l.fill - l.trims),
);
console.log(`${trims.length} trim steps (ms):`);
row(
  'trimrows',
  trims.map((l) => l.rows),
);
row(
  'trimwall',
  trims.map((l) => l.wall),
);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const trimmedAll = sum(log.map((l) => l.trimmed)) + sum(trims.map((l) => l.rows));
const usACapture = ((sum(log.map((l) => l.wall)) + sum(trims.map((l) => l.wall))) * 1000) / sent;
console.log(`trimmed ${trimmedAll} requests; catch-ups and trim steps ${usACapture.toFixed(2)} us a capture`);
row('commit', commits);
row('loopgap', loopGaps);
// PERIODS=<s>: the catch-ups' cost a row over each period of the run, to see it change as the tokens fill and trim.
const period = Number(process.env.PERIODS ?? 0) * 1000;
for (let from = start; period && from < start + seconds * 1000; from += period) {
  const ls = log.filter((l) => l.at >= from && l.at < from + period);
  const rows = ls.reduce((a, l) => a + l.rows, 0);
  const per = (f: (l: (typeof ls)[number]) => number) => (rows ? ((ls.reduce((a, l) => a + f(l), 0) * 1000) / rows).toFixed(1) : '-');
  const ts = trims.filter((l) => l.at >= from && l.at < from + period);
  const trimWall = rows ? ((ts.reduce((a, l) => a + l.wall, 0) * 1000) / rows).toFixed(1) : '-';
  console.log(
    `${((from - start) / 1000).toFixed(0).padStart(4)} s: ${ls.length} catch-ups, ${rows} rows; us a row: wall ${per((l) => l.wall)} keys ${per((l) => l.keys)} trims ${per((l) => l.trims)} rest ${per((l) => l.wall - l.keys - l.ids - l.text - l.purge - l.fill - l.trims)}; trim steps ${ts.length}, ${trimWall}`,
  );
}
console.log(
  'slowest catch-ups:',
  [...log]
    .sort((a, b) => b.wall - a.wall)
    .slice(0, 5)
    .map((l) =>
      Object.entries(l)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(' '),
    )
    .join('\n  '),
);
await store.close();
if (!process.env.REUSE && !process.env.KEEP) rmSync(dirname(file), { recursive: true, force: true });
