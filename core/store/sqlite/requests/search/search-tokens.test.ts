// The search index per token (migration 23, search-tokens.ts): only tokens allowed more requests
// than SEARCH_INDEX_ABOVE have entries in search_keys and request_text; a token raised above it
// (or every token, when the setting is lowered) is filled in the background, and its searches
// give the same results before, during and after the fill.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../../query/index.js';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import { createBatchWriter } from '../writer/batch-writer.js';
import { FTS_AUTOMERGE } from './fts-writes.js';
import { FILL_ROWS } from './index-writes.js';
import { createSqliteStore } from '../../index.js';
import { migrate } from '../../migrations.js';
import { migrateUpTo } from '../../test/migrate-up-to.js';
import { searchIndexed } from './search-tokens.js';
import { planWalk, readWalk, WALK_BLOCK } from '../readers/request-reads.js';
import type { RequestWalkOptions, RequestWalkPage } from '../../../types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-search-tokens-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tmp = () => path.join(dir, `s-${++n}.sqlite`);

const count = (db: Database.Database, sql: string, ...params: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .get(...params) as number;
/** Each token's number as last seen (search_keys' key), so that a deleted token's keys can still be counted. */
const numbers = new WeakMap<Database.Database, Map<string, number>>();
function keysOf(db: Database.Database, tk: string): number {
  const seen = numbers.get(db) ?? new Map<string, number>();
  numbers.set(db, seen);
  const number = db.prepare('SELECT number FROM tokens WHERE uuid = ?').pluck().get(tk) as number | undefined;
  if (number !== undefined) seen.set(tk, number);
  return count(db, 'SELECT count(*) FROM search_keys WHERE token_number = ?', seen.get(tk) ?? null);
}
const textOf = (db: Database.Database, tk: string) => count(db, 'SELECT count(*) FROM request_text t JOIN requests r ON r.seq = t.rowid WHERE r.token_id = ?', tk);
const listed = (db: Database.Database, tk: string) => db.prepare('SELECT fill_sorting IS NULL AS filled FROM search_tokens WHERE token_id = ?').get(tk) as { filled: number } | undefined;

/**
 * search_rows and search_fields (migration 27) hold exactly the requests search_keys holds, with
 * their token's number, whether the body is plain, the method and the query string.
 */
function expectDenseCopies(db: Database.Database): void {
  const keys = count(db, 'SELECT count(*) FROM search_keys');
  expect([count(db, 'SELECT count(*) FROM search_rows'), count(db, 'SELECT count(*) FROM search_fields')]).toEqual([keys, keys]);
  const wrong = count(
    db,
    `SELECT count(*) FROM search_keys k JOIN requests r ON r.seq = k.seq LEFT JOIN tokens n ON n.number = k.token_number LEFT JOIN search_tokens t ON t.token_id = n.uuid
      LEFT JOIN search_rows s ON s.seq = k.seq LEFT JOIN search_fields f ON f.seq = k.seq
      WHERE s.token_number IS NOT t.token_number OR t.token_number IS NULL OR s.plain IS NOT (length(CAST(r.body AS TEXT)) = octet_length(r.body))
        OR f.method IS NOT r.method OR f.query IS NOT r.query`,
  );
  expect(wrong).toBe(0);
  // One number per listed token.
  expect(count(db, 'SELECT count(DISTINCT token_number) FROM search_tokens')).toBe(count(db, 'SELECT count(*) FROM search_tokens'));
}

const QUERIES = ['paid', '"payment failed"', 'method:PUT', 'method:put AND content:failed', 'NOT content:paid', '_exists_:query.source', 'headers.user-agent:curl*'];

function request(tokenId: string, i: number) {
  return sampleRequest(tokenId, {
    method: i % 4 ? 'POST' : 'PUT',
    body: Buffer.from(i % 5 ? `order ${i} paid` : `order ${i} payment failed`),
    query: i % 3 ? { action: 'update' } : { action: 'create', source: 'mail' },
    headers: { 'user-agent': [`curl/${i % 9}`] },
    sorting: 1_000_000 + i,
  });
}

describe.each(['in-thread', 'worker'] as const)('search index per token (%s writer)', (writer) => {
  it('indexes only the tokens allowed more than SEARCH_INDEX_ABOVE, and searches both kinds alike', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer, searchIndexAbove: 100 });
    const small = sampleToken({ request_limit: 100 });
    const big = sampleToken({ request_limit: 101 });
    await store.tokens.create(small);
    await store.tokens.create(big);
    await Promise.all(Array.from({ length: 60 }, (_, i) => [store.requests.insert(request(small.uuid, i), 100), store.requests.insert(request(big.uuid, i), 101)]).flat());
    await store.writer.sync();
    expect([keysOf(store.db, small.uuid), textOf(store.db, small.uuid)]).toEqual([0, 0]);
    expect([keysOf(store.db, big.uuid), textOf(store.db, big.uuid)]).toEqual([60, 60]);
    expectDenseCopies(store.db);
    expect(listed(store.db, small.uuid)).toBeUndefined();
    expect(listed(store.db, big.uuid)).toEqual({ filled: 1 });
    for (const q of QUERIES) {
      const page = { query: parseQuery(q), sorting: 'newest' as const, page: 1, perPage: 100, now: 0 };
      const a = await store.requests.list(small.uuid, page);
      const b = await store.requests.list(big.uuid, page);
      expect(a.total, q).toBeGreaterThan(0);
      expect(
        a.items.map((r) => r.body.toString()),
        q,
      ).toEqual(b.items.map((r) => r.body.toString()));
      expect(a.total, q).toBe(b.total);
    }
    // A deleted token leaves the list.
    await store.tokens.delete(big.uuid);
    expect(listed(store.db, big.uuid)).toBeUndefined();
    expect(keysOf(store.db, big.uuid)).toBe(0);
    expectDenseCopies(store.db);
    await store.close();
  });

  it('a bulk delete on a search-indexed token takes the full-text entries with the requests, with FTS5 merges left on', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer, searchIndexAbove: 100 });
    const big = sampleToken({ request_limit: 1_000 });
    await store.tokens.create(big);
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.requests.insert(request(big.uuid, i), 1_000)));
    await store.writer.sync();
    const entries = () => count(store.db, 'SELECT count(*) FROM request_text');
    expect(entries()).toBe(300);
    // The PUTs (every fourth): none of their entries is left for the catch-up's purge.
    expect(await store.requests.deleteMany(big.uuid, { query: parseQuery('method:PUT') })).toBe(75);
    expect(entries()).toBe(225);
    expect(textOf(store.db, big.uuid)).toBe(225);
    const page = { query: parseQuery('"payment failed"'), sorting: 'newest' as const, page: 1, perPage: 100, now: 0 };
    const found = await store.requests.list(big.uuid, page);
    expect(found.items.every((r) => r.method === 'POST')).toBe(true);
    expect(found.total).toBe(45);
    expectDenseCopies(store.db);
    // The deletion turned automerge off for its own transactions only.
    expect(count(store.db, "SELECT v FROM request_text_config WHERE k = 'automerge'")).toBe(FTS_AUTOMERGE);
    await store.close();
  });

  it('a bulk delete by a full-text term (walked through the trigram index) deletes what the same delete on an unindexed twin does', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer, searchIndexAbove: 100 });
    // `other` is indexed too, with the same texts: its entries are candidates of every walk.
    const [big, twin, other] = [sampleToken({ request_limit: 10_000 }), sampleToken({ request_limit: 100 }), sampleToken({ request_limit: 10_000 })];
    for (const t of [big, twin, other]) await store.tokens.create(t);
    const rows = 100;
    const fill = async (t: typeof big, n: number, limit: number) => {
      for (let i = 0; i < n; i += 250) await Promise.all(Array.from({ length: Math.min(250, n - i) }, (_, j) => store.requests.insert(request(t.uuid, i + j), limit)));
    };
    // 4,500 rows, 3,600 of them paid: the walk resumes past its first batch (2,000 matches).
    await fill(big, 4_500, 10_000);
    await fill(twin, rows, 100);
    await fill(other, rows, 10_000);
    await store.writer.sync();
    expect(searchIndexed(store.db, big.uuid)).toBe(true);
    expect(searchIndexed(store.db, twin.uuid)).toBe(false);
    const bodies = async (tk: string) => (await store.requests.list(tk, { sorting: 'oldest', page: 1, perPage: 10_000, now: 0 })).items.map((r) => r.body.toString());
    const otherBefore = await bodies(other.uuid);
    expect(await store.requests.deleteMany(big.uuid, { query: parseQuery('paid') })).toBe(3_600);
    expect(await store.requests.deleteMany(twin.uuid, { query: parseQuery('paid') })).toBe(80);
    expect((await bodies(big.uuid)).every((b) => b.includes('payment failed'))).toBe(true);
    expect(textOf(store.db, big.uuid)).toBe(900);
    // The same deletions on the first 100 of big's rows and on the unindexed twin leave the same.
    for (const q of ['headers.user-agent:curl/1*', '"payment failed" AND method:PUT', 'content:failed AND NOT method:PUT']) {
      const a = await store.requests.deleteMany(twin.uuid, { query: parseQuery(q), now: 0 });
      const b = await store.requests.deleteMany(big.uuid, { query: parseQuery(q), now: 0 });
      expect(a, q).toBeGreaterThan(0);
      expect(
        (await bodies(big.uuid)).filter((body) => Number(body.split(' ')[1]) < rows),
        q,
      ).toEqual(await bodies(twin.uuid));
      expect(b, q).toBeGreaterThanOrEqual(a);
    }
    expect(await bodies(other.uuid)).toEqual(otherBefore);
    expect(count(store.db, 'SELECT request_count FROM tokens WHERE uuid = ?', big.uuid)).toBe((await store.requests.list(big.uuid, { sorting: 'oldest', page: 1, perPage: 1, now: 0 })).total);
    await store.close();
  });

  it('an export walk by a full-text term (its candidates all at once, or block by block of the token index) yields what the same walk on an unindexed twin does', async () => {
    const store = createSqliteStore(tmp(), { writer, searchIndexAbove: 10_000 });
    // `other` is indexed too, its rows between big's: its entries are candidates in every block's range.
    const [big, twin, other] = [sampleToken({ request_limit: 20_000 }), sampleToken({ request_limit: 10_000 }), sampleToken({ request_limit: 20_000 })];
    for (const t of [big, twin, other]) await store.tokens.create(t);
    // Every seventh row comes with an older time (as imported ones do): sorting and seq orders differ.
    const row = (tk: string, i: number) => ({ ...request(tk, i), ...(i % 7 ? {} : { sorting: 500_000 + i }) });
    // 9,000 rows: a walk past the first block (WALK_BLOCK) and into the next.
    const rows = 9_000;
    for (let i = 0; i < rows; i += 250) {
      const n = Math.min(250, rows - i);
      await Promise.all(
        Array.from({ length: n }, (_, j) => [
          store.requests.insert(row(big.uuid, i + j), 20_000),
          store.requests.insert(row(twin.uuid, i + j), 10_000),
          ...(j % 9 ? [] : [store.requests.insert(row(other.uuid, i + j), 20_000)]),
        ]).flat(),
      );
    }
    await store.writer.sync();
    expect(rows).toBeGreaterThan(WALK_BLOCK);
    expect([searchIndexed(store.db, big.uuid), searchIndexed(store.db, twin.uuid)]).toEqual([true, false]);
    // Through the store (a reader thread), and on its connection with the bound for collecting every
    // candidate at 0, so that even these few go block by block.
    const steps = {
      store: (tk: string, opts: RequestWalkOptions) => store.requests.listAfter(tk, opts),
      blocks: async (tk: string, opts: RequestWalkOptions) => readWalk(store.db, { ...planWalk(tk, opts), setBelow: 0 }),
    };
    const walk = async (tk: string, query: string, sorting: 'oldest' | 'newest', how: keyof typeof steps = 'store') => {
      const bodies: string[] = [];
      let after: string | null = null;
      do {
        const step: RequestWalkPage = await steps[how](tk, { query: parseQuery(query), now: 0, sorting, perPage: 1_000, after });
        bodies.push(...step.items.map((r) => r.body.toString()));
        after = step.next;
      } while (after);
      return bodies;
    };
    for (const q of ['paid', '"payment failed"', 'content:failed AND NOT method:PUT', 'headers.user-agent:curl/1*', 'paid OR "payment failed"', 'order AND method:PUT']) {
      for (const sorting of ['oldest', 'newest'] as const) {
        const a = await walk(twin.uuid, q, sorting);
        expect(a.length, `${q} ${sorting}`).toBeGreaterThan(0);
        expect(await walk(big.uuid, q, sorting), `${q} ${sorting}`).toEqual(a);
        expect(await walk(big.uuid, q, sorting, 'blocks'), `${q} ${sorting} block by block`).toEqual(a);
      }
    }
    await store.close();
  });

  it('fills a token raised above the setting in the background, searching it the same way meanwhile', async () => {
    const file = tmp();
    const store = createSqliteStore(file, { writer, searchIndexAbove: 10_000 });
    // `twin` gets the same requests and is never indexed: its results are the reference.
    const t = sampleToken({ request_limit: 10_000 });
    const twin = sampleToken({ request_limit: 10_000 });
    await store.tokens.create(t);
    await store.tokens.create(twin);
    const capture = (i: number, limit: number) => Promise.all([store.requests.insert(request(t.uuid, i), limit), store.requests.insert(request(twin.uuid, i), 10_000)]);
    const total = 2 * FILL_ROWS + 123;
    for (let i = 0; i < total; i += 250) await Promise.all(Array.from({ length: Math.min(250, total - i) }, (_, j) => capture(i + j, 10_000)));
    await store.writer.sync();
    const search = (tk: string) =>
      Promise.all(
        QUERIES.map(async (q) => {
          const l = await store.requests.list(tk, { query: parseQuery(q), sorting: 'oldest', page: 2, perPage: 7, now: 0 });
          return { total: l.total, bodies: l.items.map((r) => r.body.toString()) };
        }),
      );
    const same = async () => expect(await search(t.uuid)).toEqual(await search(twin.uuid));
    await same();
    expect(keysOf(store.db, t.uuid)).toBe(0);

    await store.tokens.update(t.uuid, { request_limit: 20_000 });
    expect(listed(store.db, t.uuid)).toEqual({ filled: 0 });
    expect(searchIndexed(store.db, t.uuid)).toBe(false);
    // Captures while it fills are indexed by the catch-up, not twice by the fill.
    await capture(total, 20_000);
    await store.writer.sync();
    await same();
    const deadline = Date.now() + 10_000;
    while (!listed(store.db, t.uuid)?.filled && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(listed(store.db, t.uuid)).toEqual({ filled: 1 });
    expect(searchIndexed(store.db, t.uuid)).toBe(true);
    expect([keysOf(store.db, t.uuid), textOf(store.db, t.uuid)]).toEqual([total + 1, total + 1]);
    expect(count(store.db, 'SELECT count(*) FROM request_text')).toBe(total + 1);
    expectDenseCopies(store.db);
    await same();
    expect((await search(t.uuid)).every((r) => r.total > 0)).toBe(true);
    await store.close();
  });
});

/** A database made by an earlier version (migrated up to `version`), and a statement that adds a token (uuid, request_limit). */
function databaseAt(version: number) {
  const db = new Database(':memory:');
  migrateUpTo(db, version);
  const token = db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
    default_status, default_content_type, request_limit, created_at, updated_at) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', ?, 0, 0)`);
  return { db, token };
}

describe('SEARCH_INDEX_ABOVE and migration 23', () => {
  it('lowering the setting lists the tokens above it at start-up, and fills them', async () => {
    const file = tmp();
    const first = createSqliteStore(file);
    const t = sampleToken({ request_limit: 500 });
    await first.tokens.create(t);
    await Promise.all(Array.from({ length: 300 }, (_, i) => first.requests.insert(request(t.uuid, i), 500)));
    await first.close();
    const again = createSqliteStore(file, { searchIndexAbove: 0 });
    const deadline = Date.now() + 10_000;
    while (!listed(again.db, t.uuid)?.filled && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect([keysOf(again.db, t.uuid), textOf(again.db, t.uuid)]).toEqual([300, 300]);
    expectDenseCopies(again.db);
    expect((await again.requests.list(t.uuid, { query: parseQuery('"payment failed"'), sorting: 'oldest', page: 1, perPage: 100, now: 0 })).total).toBe(60);
    await again.close();
  });

  it("keeps the search index of the tokens above 10,000 and drops the others' from a database made before it", () => {
    const { db, token } = databaseAt(22);
    token.run('small', 10_000);
    token.run('big', 10_001);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, headers, files, output, errors, time,
      sorting, created_at, updated_at, extra) VALUES (?, ?, 'web', '10.0.0.1', 'PUT', ?, 4, '{}', '[]', '[]', '[]', 0, ?, 0, 0, '{}')`);
    for (let i = 0; i < 40; i++) insert.run(`u${i}`, i % 2 ? 'big' : 'small', Buffer.from(`body ${i}`), i);
    db.exec(`INSERT INTO request_keys (tk, st, sq, km, kty, kip, kca, ksz) SELECT token_id, sorting, seq, method, type, ip, created_at, size FROM requests;
      INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests;
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests)`);
    migrate(db);
    expect(count(db, 'SELECT count(*) FROM request_keys')).toBe(40);
    expect([keysOf(db, 'small'), keysOf(db, 'big'), textOf(db, 'small'), textOf(db, 'big')]).toEqual([0, 20, 0, 20]);
    expect(listed(db, 'big')).toEqual({ filled: 1 });
    expect(listed(db, 'small')).toBeUndefined();
    // The triggers: a token created or raised above the setting is listed; raised, it waits for its fill.
    token.run('new-big', 20_000);
    expect(listed(db, 'new-big')).toEqual({ filled: 1 });
    db.prepare("UPDATE tokens SET request_limit = 50000 WHERE uuid = 'small'").run();
    expect(listed(db, 'small')).toEqual({ filled: 0 });
    db.prepare("DELETE FROM tokens WHERE uuid = 'big'").run();
    expect(listed(db, 'big')).toBeUndefined();
    db.close();
  });
});

describe('migration 27 (search_rows, search_fields)', () => {
  it('copies the indexed requests of a database made before it, numbers its listed tokens, and keeps the copies with later changes', () => {
    const { db, token } = databaseAt(26);
    token.run('a', 50_000);
    token.run('b', 50_000);
    token.run('small', 100);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time,
      sorting, created_at, updated_at, extra) VALUES (?, ?, 'web', '10.0.0.1', ?, ?, 4, ?, '{}', '[]', '[]', '[]', 0, ?, 0, 0, '{}')`);
    const bodies = ['plain text', 'caf\u00e9', 'nul\u0000byte'];
    const bodyOf = (i: number) => bodies[Math.floor(i / 3) % 3];
    for (let i = 0; i < 30; i++) insert.run(`u${i}`, ['a', 'b', 'small'][i % 3], i % 2 ? 'PUT' : 'POST', Buffer.from(bodyOf(i)), i % 2 ? '{"x":"1"}' : null, i);
    // The search index as version 26 kept it, for the listed tokens a and b.
    db.exec(`INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests;
      INSERT INTO search_keys (tk, st, sq, km, kty, kip, kca, ksz) SELECT token_id, sorting, seq, method, type, ip, created_at, size FROM requests WHERE token_id IN ('a', 'b');
      INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests WHERE token_id IN ('a', 'b');
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests)`);
    migrate(db);
    expectDenseCopies(db);
    expect(count(db, 'SELECT count(*) FROM search_rows')).toBe(20);
    expect(db.prepare('SELECT token_id, token_number FROM search_tokens ORDER BY token_id').all()).toEqual([
      { token_id: 'a', token_number: 1 },
      { token_id: 'b', token_number: 2 },
    ]);
    // Plain bodies only: ASCII without NUL.
    const plain = db.prepare('SELECT plain FROM search_rows ORDER BY seq').pluck().all();
    const indexed = Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 3 !== 2);
    expect(plain).toEqual(indexed.map((i) => (bodyOf(i) === 'plain text' ? 1 : 0)));
    // A token listed later gets the next number; deleting rows (and tokens) takes their copies.
    token.run('c', 50_000);
    expect(count(db, "SELECT token_number FROM search_tokens WHERE token_id = 'c'")).toBe(3);
    for (let i = 30; i < 40; i++) insert.run(`u${i}`, 'c', 'GET', Buffer.from('x\u0000y'), '{}', i);
    createBatchWriter(db).catchUp();
    expectDenseCopies(db);
    expect(count(db, 'SELECT count(*) FROM search_rows WHERE token_number = 3 AND plain = 0')).toBe(10);
    db.exec("DELETE FROM requests WHERE token_id = 'a' OR seq % 4 = 0");
    expectDenseCopies(db);
    db.close();
  });
});
