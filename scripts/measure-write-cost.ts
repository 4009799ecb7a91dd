// CPU per capture of the SQLite capture write path, in-process and without HTTP: the commit (rows of
// a batch), the catch-up and the trims, on the batch writer's code (batch-writer.ts) and a store's
// connection, next to the same rows inserted into the minimal capture server's table. Process CPU
// time, not wall time: steadier than the bench's HTTP figures on a loaded machine, so the place to
// see what a change to the writer saves (run it a few times; compare like with like).
// Usage: npx tsx scripts/measure-write-cost.ts [plain|search|trim|minimal] [captures=60000]
// BATCH (24): captures per commit; PER_CATCHUP (1200): captures per catch-up; TOKENS (100) receive
// in turn. CHUNK: rows per catch-up step (default: one step takes every pending row; the event
// loop's schedule steps by about CATCH_UP_CHUNK_MS, some hundreds of rows under load). `search`: tokens above SEARCH_INDEX_ABOVE; `trim`: tokens at a request_limit of 100, filled
// first far enough for the sweep to run; the trims run as the schedule runs them under load, once a
// catch-up has caught up or its steps took TRIM_ROWS_PER_TOKEN rows a token over its limit
// (TRIM_STEPS=1: after every step, as it ran them before); the step that catches up trims in its
// transaction, up to LAST_TRIMS requests (default: all; 0: none, each trim a step of its own), the
// trim steps up to TRIM_MAX each (default: all; the schedule's aim, about CATCH_UP_CHUNK_MS, cuts
// them short under load). SHUFFLE=1 takes each batch's tokens in another order, as captures that
// arrive out of turn come (the bench's load), rather than in turn. STATEMENTS=1 also prints CPU per capture by statement
// (each statement call timed: the figures then include that timing's cost).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sampleToken } from '../core/store/store.contract.js';
import { toRow } from '../core/store/sqlite/requests/columns.js';
import { createBatchWriter, type WriteItem } from '../core/store/sqlite/requests/writer/batch-writer.js';
import { TRIM_ROWS_PER_TOKEN } from '../core/store/sqlite/requests/writer/catch-up-schedule.js';
import { createSqliteStore } from '../core/store/sqlite/index.js';
import type { RequestRecord } from '../core/store/types.js';
import { createSortingKeys } from '../core/util/time.js';
import { uuidv7 } from '../core/util/uuid.js';

const mode = process.argv[2] ?? 'plain';
const captures = Number(process.argv[3] ?? 60_000);
const BATCH = Number(process.env.BATCH ?? 24);
const PER_CATCHUP = Number(process.env.PER_CATCHUP ?? 1_200);
const TOKENS = Number(process.env.TOKENS ?? 100);
const CHUNK = Number(process.env.CHUNK ?? Number.MAX_SAFE_INTEGER);
const TRIM_STEPS = !!process.env.TRIM_STEPS;
const LAST_TRIMS = Number(process.env.LAST_TRIMS ?? Number.MAX_SAFE_INTEGER);
const TRIM_MAX = Number(process.env.TRIM_MAX ?? Number.MAX_SAFE_INTEGER);
const SHUFFLE = !!process.env.SHUFFLE;
/** A seeded generator (mulberry32): the same shuffles run after run. */
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const dir = mkdtempSync(join(tmpdir(), 'measure-write-cost-'));
const sorting = createSortingKeys();
const body = Buffer.from(JSON.stringify({ event: 'order.created', id: 123456, amount: 19.99, currency: 'EUR', customer: { id: 'cus_42' } }));
/** A capture as the HTTP handler builds it for the bench's POST (a plain row). */
function record(token: string): RequestRecord {
  const now = Date.now();
  return {
    uuid: uuidv7(now),
    token_id: token,
    type: 'web',
    team_id: null,
    ip: '127.0.0.1',
    hostname: '127.0.0.1',
    method: 'POST',
    user_agent: '',
    url: `http://127.0.0.1:3000/${token}`,
    content_type: 'application/json',
    body,
    size: body.length,
    query: null,
    headers: { host: ['127.0.0.1:3000'], 'content-type': ['application/json'], 'content-length': [String(body.length)] },
    form: null,
    files: [],
    custom_action_output: [],
    custom_action_errors: [],
    time: 0.0001,
    note: null,
    sorting: sorting(),
    created_at: now,
    updated_at: now,
    extra: {},
    httpVersion: '1.1',
  };
}
/** This process's CPU time in µs. */
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const perCapture = (us: number) => (us / captures).toFixed(2);

if (mode === 'minimal') {
  // bench/minimal-capture-server.ts's table, settings and INSERT.
  const db = new Database(join(dir, 'minimal.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE requests (seq INTEGER PRIMARY KEY, uuid TEXT NOT NULL, token_id TEXT NOT NULL, type TEXT NOT NULL,
    ip TEXT, hostname TEXT, method TEXT, user_agent TEXT, url TEXT, content_type TEXT, body BLOB NOT NULL, size INTEGER NOT NULL,
    query TEXT, headers TEXT NOT NULL, time REAL NOT NULL, sorting INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    team_id INTEGER, form TEXT, files TEXT NOT NULL DEFAULT '[]', output TEXT NOT NULL DEFAULT '[]', errors TEXT NOT NULL DEFAULT '[]',
    note TEXT, extra TEXT NOT NULL DEFAULT '{}', http_version TEXT)`);
  const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, hostname, method, user_agent, url, content_type, body, size, query,
    headers, time, sorting, created_at, updated_at) VALUES (?, ?, 'web', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const tokens = Array.from({ length: TOKENS }, () => crypto.randomUUID());
  const commit = db.transaction((rows: unknown[][]) => {
    for (const row of rows) insert.run(row);
  });
  let k = 0;
  const run = (n: number) => {
    for (let i = 0; i < n; i += BATCH) {
      const rows: unknown[][] = [];
      for (let j = 0; j < BATCH; j++) {
        const r = record(tokens[k++ % TOKENS]!);
        rows.push([r.uuid, r.token_id, r.ip, r.hostname, r.method, r.user_agent, r.url, r.content_type, r.body, r.size, null, JSON.stringify(r.headers), r.time, r.sorting, r.created_at, r.updated_at]);
      }
      commit(rows);
    }
  };
  run(20_000);
  const c0 = cpu();
  run(captures);
  console.log(`minimal: rows and commit ${perCapture(cpu() - c0)} µs per capture (batches of ${BATCH})`);
  db.close();
} else {
  const store = createSqliteStore(join(dir, 'store.sqlite'), { writer: 'in-thread' });
  const limit = mode === 'search' ? 20_000 : mode === 'trim' ? 100 : 10_000;
  const tokens = Array.from({ length: TOKENS }, () => sampleToken({ request_limit: limit }));
  for (const t of tokens) await store.tokens.create(t);
  const bySql = new Map<string, number>();
  if (process.env.STATEMENTS) {
    // Times every call of the statements the writer prepares from here on.
    const prepare = store.db.prepare.bind(store.db);
    store.db.prepare = ((sql: string) => {
      const statement = prepare(sql) as unknown as Record<string, (...a: unknown[]) => unknown>;
      for (const m of ['run', 'get', 'all']) {
        const call = statement[m]!.bind(statement);
        statement[m] = (...a: unknown[]) => {
          const c0 = cpu();
          try {
            return call(...a);
          } finally {
            bySql.set(sql, (bySql.get(sql) ?? 0) + cpu() - c0);
          }
        };
      }
      const pluck = statement.pluck!.bind(statement);
      statement.pluck = (...a: unknown[]) => (pluck(...a), statement);
      return statement;
    }) as unknown as typeof store.db.prepare;
  }
  // The store's own writer stays idle: these captures go through a writer of their own on its connection.
  const writer = createBatchWriter(store.db);
  const spent = { rows: 0, commit: 0, catchUp: 0, trim: 0 };
  let k = 0;
  let since = 0;
  const run = (n: number) => {
    for (let i = 0; i < n; i += BATCH) {
      const c0 = cpu();
      const batch = Array.from({ length: BATCH }, () => tokens[k++ % TOKENS]!);
      // As captures that arrive out of turn come: each batch's tokens in another order.
      if (SHUFFLE)
        for (let j = batch.length - 1; j > 0; j--) {
          const r = Math.floor(random() * (j + 1));
          [batch[j], batch[r]] = [batch[r]!, batch[j]!];
        }
      const items: WriteItem[] = batch.map((t) => ({ row: toRow(record(t.uuid)), limit: t.request_limit }));
      const c1 = cpu();
      writer.commit(items, false);
      const c2 = cpu();
      spent.rows += c1 - c0;
      spent.commit += c2 - c1;
      since += BATCH;
      if (since >= PER_CATCHUP) {
        since = 0;
        // As the event loop's schedule does: the catch-up leaves the trims to steps of their own,
        // once it has caught up or its steps took TRIM_ROWS_PER_TOKEN rows a token waiting (after
        // every step with TRIM_STEPS=1).
        let trimmed = 0;
        let caughtSinceTrims = 0;
        do {
          const t = cpu();
          caughtSinceTrims += writer.catchUp(false, CHUNK, true, LAST_TRIMS) ?? 0;
          // The trims of the step that caught up, in its transaction (their share of its CPU time, by wall time).
          trimmed += Math.min(cpu() - t, writer.lastCatchUp.trims * 1000);
          if (!writer.caughtUp && (TRIM_STEPS || caughtSinceTrims >= TRIM_ROWS_PER_TOKEN * writer.tokensOverLimit)) {
            const c = cpu();
            while (writer.trimsDue) writer.trim(false, TRIM_MAX);
            trimmed += cpu() - c;
            caughtSinceTrims = 0;
          }
        } while (!writer.caughtUp);
        // Requests the steps deferred to the search index, in steps of CHUNK as well (search/index-writes.ts defer).
        while (writer.indexDue) writer.index(false, CHUNK);
        const c3 = cpu();
        while (writer.trimsDue) writer.trim(false, TRIM_MAX);
        spent.catchUp += c3 - c2 - trimmed;
        spent.trim += cpu() - c3 + trimmed;
      }
    }
  };
  run(mode === 'trim' ? 40_000 : 20_000);
  Object.assign(spent, { rows: 0, commit: 0, catchUp: 0, trim: 0 });
  bySql.clear();
  run(captures);
  const total = spent.rows + spent.commit + spent.catchUp + spent.trim;
  console.log(
    `${mode}: rows ${perCapture(spent.rows)}, commit ${perCapture(spent.commit)}, catch-up ${perCapture(spent.catchUp)}, trims ${perCapture(spent.trim)}, ` +
      `total ${perCapture(total)} µs per capture (batches of ${BATCH}, ${PER_CATCHUP} a catch-up${CHUNK < Number.MAX_SAFE_INTEGER ? ` in steps of ${CHUNK}` : ''}, ${TOKENS} tokens)`,
  );
  for (const [sql, us] of [...bySql].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${perCapture(us).padStart(7)}  ${sql.replace(/\s+/g, ' ').slice(0, 140)}`);
  await store.close();
}
rmSync(dir, { recursive: true, force: true });
