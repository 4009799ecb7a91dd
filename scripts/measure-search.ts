// Times the request list's query forms on one SQLite token holding many requests:
// median of several runs per form, through RequestRepo.list as the API calls it.
// Usage: npx tsx scripts/measure-search.ts [requests=1000000] [runs=7]
// Seeds directly through the store's connection (big transactions, then one catch-up), not HTTP.
// CORPUS=bench seeds the search bench's corpus (bench/search-corpus.ts) and times its TIMED_QUERIES
// too; KEEP=1 keeps the file, REUSE=<file> times an already seeded one (its token id in REUSE_TOKEN).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseQuery } from '../core/store/query/index.js';
import { createSqliteStore } from '../core/store/sqlite/index.js';
import { requestSeeder } from '../core/store/sqlite/requests/index.js';
import { sampleRequest } from '../core/store/store.contract.js';
import type { RequestWalkPage } from '../core/store/types.js';
import { CORPUS_SIZE, corpusEntry, TIMED_QUERIES } from '../bench/search-corpus.js';
import { foreignCommits } from './foreign-commits.js';

const total = Number(process.argv[2] ?? 1_000_000);
const runs = Number(process.argv[3] ?? 7);
const benchCorpus = process.env.CORPUS === 'bench';
const reuse = process.env.REUSE;
// A folder only for a file seeded here (a REUSE run left an empty one behind each time).
const file = reuse ?? join(mkdtempSync(join(tmpdir(), 'measure-search-')), 'capture.sqlite');
const now = Date.now();
const token = reuse ? process.env.REUSE_TOKEN! : randomUUID();
if (!reuse) await seed();

async function seed(): Promise<void> {
  const seeding = createSqliteStore(file, { writer: 'in-thread' });

  await seeding.tokens.create({
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
    user_agent: 'measure',
    default_content: '',
    default_status: 200,
    default_content_type: 'text/plain',
    request_limit: total,
    description: null,
    group_id: null,
    password_hash: null,
    created_at: now,
    updated_at: now,
    expires_at: null,
    team_id: null,
  });

  const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH'];
  const STATUS = ['paid', 'pending', 'failed', 'refunded'];
  const ACTIONS = ['create', 'update', 'delete'];
  const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett'];
  // Rows behind the writer's back (the engine's seeder, built from the column table), caught up when the store opens again.
  const seedRow = requestSeeder(seeding.db);
  const insert = (
    uuid: string,
    tokenId: string,
    ip: string,
    method: string,
    url: string,
    body: Buffer,
    size: number,
    query: Record<string, string>,
    headers: Record<string, string[]>,
    note: string | null,
    sorting: number,
    created: number,
  ): void =>
    seedRow(
      sampleRequest(tokenId, {
        uuid,
        ip,
        hostname: 'localhost',
        method,
        user_agent: 'curl/8',
        url,
        content_type: 'text/plain',
        body,
        size,
        query,
        headers,
        note,
        time: 0.001,
        sorting,
        created_at: created,
        updated_at: created,
      }),
    );
  const t0 = performance.now();
  const seedBatch = seeding.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      if (benchCorpus) {
        const e = corpusEntry(i % CORPUS_SIZE);
        const created = now - (total - i) * 2_000;
        const headers = Object.fromEntries([...Object.entries(e.headers), ['Host', 'localhost']].map(([k, v]) => [k.toLowerCase(), [v]]));
        const qs = e.pathSuffix.startsWith('?') ? Object.fromEntries(new URLSearchParams(e.pathSuffix.slice(1))) : {};
        const body = Buffer.from(e.body ?? '');
        insert(randomUUID(), token, `10.0.${(i >> 8) & 255}.${i & 255}`, e.method, `http://localhost/${token}${e.pathSuffix}`, body, body.length, qs, headers, null, 1_700_000_000_000_000 + i, created);
        continue;
      }
      const body = Buffer.from(`order ord-${i} for ${WORDS[i % 10]}-${i % 997} status ${STATUS[i % 4]} from customer${i % 5003}@example.com` + (i % 100 === 0 ? ' '.padEnd(2_000, 'x') : ''));
      const created = now - (total - i) * 2_000; // one every 2 s, the newest now
      const agent = i % 2 ? 'curl/8.5' : 'python-requests/2.31';
      const headers: Record<string, string[]> = i % 50 === 0 ? { 'content-type': ['text/plain'], 'user-agent': [agent], 'x-trace': [`t${i}`] } : { 'content-type': ['text/plain'], 'user-agent': [agent] };
      const query: Record<string, string> = i % 500 === 0 ? { action: ACTIONS[i % 3]!, source: 'mail' } : { action: ACTIONS[i % 3]! };
      insert(
        randomUUID(),
        token,
        `10.0.${(i >> 8) & 255}.${i & 255}`,
        METHODS[i % 7],
        `http://localhost/p/${i % 100}`,
        body,
        body.length,
        query,
        headers,
        i % 1000 === 0 ? 'flagged' : null,
        1_700_000_000_000_000 + i,
        created,
      );
    }
  });
  for (let i = 0; i < total; i += 50_000) seedBatch(i, Math.min(total, i + 50_000));
  const t1 = performance.now();
  await seeding.close();
  // Opened again, the store catches up the rows stored behind its writer's back: token index, UUID index, full-text index.
  await createSqliteStore(file, { writer: 'in-thread' }).close();
  const t2 = performance.now();
  console.log(`seeded ${total} requests: inserts ${((t1 - t0) / 1000).toFixed(1)} s, catch-up (indexes) ${((t2 - t1) / 1000).toFixed(1)} s`);
  if (process.env.KEEP) console.log(`kept ${file} token ${token}`);
}
const store = createSqliteStore(file, { writer: 'in-thread' });
// FOREIGN=<n>: another connection commits n times a second while the forms are timed (as captures do).
const foreign = foreignCommits(file, Number(process.env.FOREIGN ?? 0));

const seedWindow = { startedAt: now - total * 2_000, finishedAt: now };
const benchForms: typeof forms = TIMED_QUERIES.map((q) => [q.form, typeof q.query === 'string' ? q.query : q.query(seedWindow, Date.now()), {}]);
const forms: Array<[string, string | null, { sorting?: 'newest' | 'oldest'; page?: number }]> = benchCorpus
  ? [...benchForms, ['_exists_ (header)', '_exists_:headers.user-agent', {}], ['NOT on content', 'NOT order', {}], ['newest page=900', null, { sorting: 'newest', page: 900 }]]
  : [
      ['bare word (rare)', 'ord-123456', {}],
      ['bare word (common)', 'foxtrot', {}],
      ['phrase', '"status refunded"', {}],
      ['field:value', 'method:PUT', {}],
      ['field:value (ip)', 'ip:10.0.3.7', {}],
      ['field:value (header)', 'headers.user-agent:curl', {}],
      ['field:value (query string)', 'query.action:update', {}],
      ['wildcard/prefix', 'content:ord-12345*', {}],
      ['wildcard (short prefix)', 'content:ord*', {}],
      ['range with date math', 'created_at:[now-1d TO now]', {}],
      ['range + method', 'created_at:[now-7d TO now-6d] AND method:DELETE', {}],
      ['date math range + method', 'created_at:[now-1d/d TO *] AND method:PUT', {}],
      ['numeric range (size)', 'size:[2000 TO *]', {}],
      ['numeric range (common)', 'size:[90 TO *]', {}],
      ['AND/OR/NOT', '(method:PUT OR method:DELETE) AND NOT content:failed', {}],
      ['AND/OR/NOT (bench form)', 'method:POST AND (charlie OR refunded) AND NOT query.action:create', {}],
      ['_exists_', '_exists_:note', {}],
      ['_exists_ (header)', '_exists_:headers.x-trace', {}],
      ['_exists_ (common query)', '_exists_:query.action', {}],
      ['_exists_ (rare query)', '_exists_:query.source', {}],
      ['newest page=900', null, { sorting: 'newest', page: 900 }],
      ['newest page=1', null, { sorting: 'newest', page: 1 }],
    ];
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, q, o] of forms) {
  const times: number[] = [];
  let total = 0;
  let capped = false;
  for (let r = 0; r < runs; r++) {
    const s = performance.now();
    const page = await store.requests.list(token, {
      query: q ? parseQuery(q) : null,
      now: Date.now(),
      sorting: o.sorting ?? 'oldest',
      page: o.page ?? 1,
      perPage: 50,
    });
    times.push(performance.now() - s);
    total = page.total;
    capped = page.totalCapped ?? false;
  }
  console.log(
    `${name.padEnd(26)} ${(q ?? '').padEnd(52)} median ${median(times).toFixed(1).padStart(7)} ms  min ${Math.min(...times).toFixed(1)}  max ${Math.max(...times).toFixed(1)}  total ${total}${capped ? ' (capped)' : ''}`,
  );
}

// WALK=<steps>: export walks (listAfter, 1,000 requests a step, as exports read), median step of the first <steps>.
const walkSteps = Number(process.env.WALK ?? 0);
for (const q of walkSteps ? ['status', 'foxtrot', 'ord-12345', '"status refunded"', 'method:PUT AND customer1*'] : []) {
  for (const sorting of ['oldest', 'newest'] as const) {
    const times: number[] = [];
    let rows = 0;
    let after: string | null = null;
    do {
      const s = performance.now();
      const step: RequestWalkPage = await store.requests.listAfter(token, { query: parseQuery(q), now: Date.now(), sorting, perPage: 1_000, after });
      times.push(performance.now() - s);
      rows += step.items.length;
      after = step.next;
    } while (after && times.length < walkSteps);
    console.log(`walk ${q.padEnd(28)} ${sorting.padEnd(6)} median step ${median(times).toFixed(1).padStart(7)} ms  max ${Math.max(...times).toFixed(1)}  ${times.length} steps, ${rows} rows`);
  }
}

await foreign.stop();
if (reuse || process.env.KEEP) {
  console.log(`kept ${file} token ${token}`);
  await store.close();
  process.exit(0);
}
const d0 = performance.now();
const deleted = await store.requests.deleteMany(token, { query: parseQuery('method:GET'), now: Date.now() });
console.log(`deleteMany method:GET: ${deleted} rows in ${((performance.now() - d0) / 1000).toFixed(2)} s (chunked)`);
await store.close();
rmSync(dirname(file), { recursive: true, force: true });
