// Deferred bookkeeping (migrations 12-13, batch-writer.ts catchUp): pending rows, their catch-up by
// either writer (in-thread, thread), at start-up and on sync, reads by UUID before and after it,
// and the migration of older databases.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import { PLAIN_COLUMNS, REQUEST_ROW, toRow } from '../columns.js';
import { createBatchWriter } from './batch-writer.js';
import { catchUpSchedule } from './catch-up-schedule.js';
import { inThreadWriter } from './capture-writer.js';
import { createSqliteStore } from '../../index.js';
import { migrate, migrations } from '../../migrations.js';
import { parseQuery } from '../../../query/index.js';
import { SEQ_OF_UUID } from '../readers/request-reads.js';
import { sqliteTokens } from '../../repos/tokens.js';
import { searchKeyInsert } from '../search/search-keys.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-catch-up-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tmp = () => path.join(dir, `c-${++n}.sqlite`);
const page = { page: 1, perPage: 1000, sorting: 'oldest' as const };

/**
 * A migrated database file with these tokens, and a batch writer on its connection. Tokens allowed
 * more than 10,000 requests have a search index (migration 23).
 */
function writerOn(file: string, tokens: string[], requestLimit?: number) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  migrate(db);
  const t = sqliteTokens(db);
  for (const uuid of tokens) void t.create(sampleToken({ uuid, ...(requestLimit ? { request_limit: requestLimit } : {}) }));
  // No backlog of trimmed rows: each trim deletes them (the sweep's backlog has tests of its own).
  return { db, writer: createBatchWriter(db, { trimmedBacklog: 0 }) };
}

/** A database as an earlier process left it: the schema, and rows stored but never caught up. */
function leftBehind(file: string, rows: Array<{ tokenId: string; body: string }>, tokens: string[]): void {
  const { db, writer } = writerOn(file, tokens);
  // commit() alone stores pending rows, as the writer thread does before its catch-up.
  const outcomes = writer.commit(rows.map((r) => ({ row: toRow(sampleRequest(r.tokenId, { body: Buffer.from(r.body) })), limit: 10_000 })));
  expect(outcomes.every((o) => o === null)).toBe(true);
  db.close();
}

const pendingCount = (db: Database.Database) => (db.prepare('SELECT count(*) AS n FROM requests WHERE seq > (SELECT seq FROM request_watermark)').get() as { n: number }).n;

describe.each(['in-thread', 'worker'] as const)('sqlite deferred catch-up (%s writer)', (writer) => {
  const open = (file: string) => createSqliteStore(file, { writer });

  it('stores captures pending and catches them up within its interval, unasked', async () => {
    const file = tmp();
    const store = open(file);
    const t = sampleToken();
    await store.tokens.create(t);
    await Promise.all(Array.from({ length: 20 }, () => store.requests.insert(sampleRequest(t.uuid), 10_000)));
    await new Promise((r) => setTimeout(r, 300));
    expect(pendingCount(store.db)).toBe(0);
    expect((store.db.prepare('SELECT request_count AS n FROM tokens WHERE uuid = ?').get(t.uuid) as { n: number }).n).toBe(20);
    await store.close();
  });

  it('makes every acknowledged capture visible to the next read (sync), counters and trimming included', async () => {
    const store = open(tmp());
    const t = sampleToken();
    await store.tokens.create(t);
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 7 }, (_, i) => store.requests.insert(sampleRequest(t.uuid, { body: Buffer.from(`${round}-${i}`) }), 10)));
      const { total, items } = await store.requests.list(t.uuid, page);
      expect(total).toBe(Math.min(10, 7 * (round + 1)));
      expect(items.at(-1)?.body.toString()).toBe(`${round}-6`);
      expect((await store.tokens.stats(t.uuid)).requests).toBe(total);
      expect((await store.requests.latest(t.uuid))?.body.toString()).toBe(`${round}-6`);
    }
    await store.close();
  });

  it('lets a read go once what was acknowledged before it is caught up, while captures keep coming', async () => {
    const store = open(tmp());
    const t = sampleToken({ request_limit: 100_000 });
    await store.tokens.create(t);
    let flooding = true;
    let acked = 0;
    // A steady stream of captures into many rows at once: the catch-up is rarely whole meanwhile.
    const flood = (async () => {
      while (flooding) {
        await Promise.all(Array.from({ length: 400 }, () => store.requests.insert(sampleRequest(t.uuid), 100_000).then(() => acked++)));
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    for (let i = 0; i < 3; i++) {
      const before = acked;
      const t0 = performance.now();
      const { total } = await store.requests.list(t.uuid, { ...page, perPage: 10 });
      expect(total).toBeGreaterThanOrEqual(before);
      expect(performance.now() - t0).toBeLessThan(5_000);
    }
    flooding = false;
    await flood;
    await store.close();
  });

  it('catches up at start-up what a killed process stored, and drops rows whose token is gone', async () => {
    const file = tmp();
    const kept = sampleToken().uuid;
    const deleted = sampleToken().uuid;
    leftBehind(
      file,
      [
        { tokenId: kept, body: 'a' },
        { tokenId: kept, body: 'b' },
        { tokenId: deleted, body: 'x' },
      ],
      [kept, deleted],
    );
    // The token goes while its capture is pending (as a deletion by another process would).
    const raw = new Database(file);
    raw.prepare('DELETE FROM tokens WHERE uuid = ?').run(deleted);
    expect(pendingCount(raw)).toBe(3);
    raw.close();

    const store = open(file);
    await store.requests.list(kept, page);
    expect(pendingCount(store.db)).toBe(0);
    expect((await store.requests.list(kept, page)).items.map((r) => r.body.toString())).toEqual(['a', 'b']);
    expect(await store.tokens.stats(kept)).toMatchObject({ requests: 2 });
    expect((store.db.prepare('SELECT count(*) AS n FROM requests WHERE token_id = ?').get(deleted) as { n: number }).n).toBe(0);
    await store.close();
  });

  it('trims at start-up a token a stopped process left over its limit between a catch-up and its trims', async () => {
    const file = tmp();
    const a = sampleToken().uuid;
    const { db, writer: left } = writerOn(file, [a], 4);
    left.commit(Array.from({ length: 10 }, () => ({ row: toRow(sampleRequest(a)), limit: 4 })));
    expect(left.catchUp(true, Number.MAX_SAFE_INTEGER, true)).toBe(10);
    // Stopped before its trims.
    expect(left.trimsDue).toBe(true);
    db.close();

    const store = open(file);
    expect((await store.requests.list(a, page)).items).toHaveLength(4);
    expect(await store.tokens.stats(a)).toMatchObject({ requests: 4 });
    await store.close();
  });

  it("keeps counts exact when two writers (two processes) share the file and catch up each other's rows", async () => {
    const file = tmp();
    const a = open(file);
    const b = open(file);
    const t = sampleToken();
    await a.tokens.create(t);
    for (let round = 0; round < 4; round++) {
      // Interleaved commits from both writers, each catching up over the same watermark.
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).requests.insert(sampleRequest(t.uuid, { body: Buffer.from(`${round}-${i}`) }), 10_000)));
      await (round % 2 ? a : b).requests.list(t.uuid, page);
    }
    await a.requests.list(t.uuid, page);
    await b.requests.list(t.uuid, page);
    for (const s of [a, b]) {
      expect((await s.requests.list(t.uuid, page)).total).toBe(40);
      expect((await s.tokens.stats(t.uuid)).requests).toBe(40);
    }
    expect(pendingCount(a.db)).toBe(0);
    expect((a.db.prepare('SELECT count(*) AS n FROM request_keys').get() as { n: number }).n).toBe(40);
    await a.close();
    await b.close();
  });

  it('reads, updates and deletes a capture by UUID while it is pending and once caught up, files included', async () => {
    const store = open(tmp());
    const t = sampleToken();
    const other = sampleToken();
    await store.tokens.create(t);
    await store.tokens.create(other);
    const [a, b] = [sampleRequest(t.uuid, { body: Buffer.from('a') }), sampleRequest(t.uuid, { body: Buffer.from('b') })];
    await Promise.all([store.requests.insert(a, 100, new Map([['f', Buffer.from('file a')]])), store.requests.insert(b, 100)]);
    // Pending: found among the rows past the watermark.
    expect(pendingCount(store.db)).toBe(2);
    expect((await store.requests.get(t.uuid, a.uuid))?.body.toString()).toBe('a');
    expect(await store.requests.get(other.uuid, a.uuid)).toBeNull();
    expect((await store.requests.getFile(t.uuid, a.uuid, 'f'))?.toString()).toBe('file a');
    expect(await store.requests.getFile(other.uuid, a.uuid, 'f')).toBeNull();
    expect((await store.requests.update(t.uuid, b.uuid, { note: 'pending note' }))?.note).toBe('pending note');
    expect(await store.requests.update(other.uuid, b.uuid, { note: 'not theirs' })).toBeNull();
    // Caught up: found through the UUID index, not the scan.
    await store.requests.list(t.uuid, page);
    expect(pendingCount(store.db)).toBe(0);
    expect((store.db.prepare('SELECT count(*) AS n FROM request_ids').get() as { n: number }).n).toBe(2);
    expect((await store.requests.get(t.uuid, b.uuid))?.note).toBe('pending note');
    expect(await store.requests.delete(other.uuid, a.uuid)).toBe(false);
    expect(await store.requests.delete(t.uuid, a.uuid)).toBe(true);
    expect(await store.requests.get(t.uuid, a.uuid)).toBeNull();
    // Its index entries and files went with it (trigger requests_gone).
    const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
    expect([count('SELECT count(*) AS n FROM request_ids'), count('SELECT count(*) AS n FROM request_keys'), count('SELECT count(*) AS n FROM request_files')]).toEqual([1, 1, 0]);
    expect((await store.tokens.stats(t.uuid)).requests).toBe(1);
    await store.close();
  });

  it('deletes a token with its requests, pending ones and files included', async () => {
    const store = open(tmp());
    const t = sampleToken();
    const other = sampleToken();
    await store.tokens.create(t);
    await store.tokens.create(other);
    await store.requests.insert(sampleRequest(t.uuid), 100, new Map([['f', Buffer.from('file')]]));
    await store.requests.insert(sampleRequest(other.uuid), 100);
    await store.requests.list(t.uuid, page);
    // One more, deleted with the token before any catch-up could take it.
    const last = store.requests.insert(sampleRequest(t.uuid), 100);
    await last;
    const number = store.db.prepare('SELECT number FROM tokens WHERE uuid = ?').pluck().get(t.uuid);
    expect(await store.tokens.delete(t.uuid)).toBe(true);
    const count = (sql: string, ...p: unknown[]) => (store.db.prepare(sql).get(...p) as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM requests WHERE token_id = ?', t.uuid)).toBe(0);
    expect(count('SELECT count(*) AS n FROM request_keys WHERE token_number = ?', number)).toBe(0);
    expect(count('SELECT count(*) AS n FROM request_files')).toBe(0);
    expect((await store.requests.list(other.uuid, page)).total).toBe(1);
    await store.close();
  });
});

describe('batch writer catch-up', () => {
  function caughtUpWriter(file: string, tokens: string[], requestLimit?: number) {
    const { db, writer } = writerOn(file, tokens, requestLimit);
    writer.catchUp();
    const stats = (uuid: string) => db.prepare('SELECT request_count AS n, latest_request_id AS latest FROM tokens WHERE uuid = ?').get(uuid) as { n: number; latest: string };
    const keys = (uuid: string) => (db.prepare('SELECT count(*) AS n FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)').get(uuid) as { n: number }).n;
    return { db, writer, stats, keys };
  }
  const item = (tokenId: string, limit = 100) => ({ row: toRow(sampleRequest(tokenId)), limit });

  it('counts from what it committed, and reads the rows back when one went before its catch-up', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a, b]);
    const first = [item(a), item(b), item(a)];
    writer.commit(first);
    expect(writer.catchUp()).toBe(3);
    expect(stats(a)).toEqual({ n: 2, latest: first[2]!.row[0] });
    const second = [item(a), item(a), item(b)];
    writer.commit(second);
    // A pending row deleted (by UUID) before its catch-up: the tally no longer matches the keys.
    db.prepare('DELETE FROM requests WHERE uuid = ?').run(second[1]!.row[0]);
    expect(writer.catchUp()).toBe(2);
    expect(stats(a)).toEqual({ n: 3, latest: second[0]!.row[0] });
    expect(stats(b)).toMatchObject({ n: 2 });
    expect([keys(a), keys(b)]).toEqual([3, 2]);
    expect(writer.catchUp()).toBe(0);
    db.close();
  });

  it("keys the rows from the writer's own values as from the rows, and from the rows when a token went meanwhile", () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const c = sampleToken().uuid;
    const { db, writer, keys } = caughtUpWriter(tmp(), [a, b, c]);
    const allKeys = () => db.prepare('SELECT token_number, sorting, seq FROM request_keys ORDER BY token_number, sorting, seq').raw().all();
    const fromRows = () => db.prepare('SELECT t.number, r.sorting, r.seq FROM requests r JOIN tokens t ON t.uuid = r.token_id ORDER BY t.number, r.sorting, r.seq').raw().all();
    // Sorting keys out of seq order within a token (given, not from the clock), across commits.
    const sorted = (tokenId: string, sorting: number) => ({ row: toRow({ ...sampleRequest(tokenId), sorting }), limit: 100 });
    writer.commit([sorted(a, 5_000), sorted(b, 1_000), sorted(a, 4_000), sorted(a, 4_000)]);
    writer.commit([sorted(b, 900), sorted(a, 6_000), sorted(c, 1)]);
    expect(writer.catchUp()).toBe(7);
    expect(allKeys()).toEqual(fromRows());
    // A token deleted between its rows' commit and their catch-up: its rows get no key and go.
    writer.commit([sorted(a, 7_000), sorted(c, 2), sorted(b, 2_000)]);
    const number = db.prepare('SELECT number FROM tokens WHERE uuid = ?').pluck().get(c);
    db.prepare('DELETE FROM request_keys WHERE token_number = ?').run(number);
    db.prepare('DELETE FROM requests WHERE token_id = ? AND seq <= (SELECT seq FROM request_watermark)').run(c);
    db.prepare('DELETE FROM tokens WHERE uuid = ?').run(c);
    expect(writer.catchUp()).toBe(2);
    expect(allKeys()).toEqual(fromRows());
    expect([keys(a), keys(b)]).toEqual([5, 3]);
    expect(db.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(c)).toBe(0);
    db.close();
  });

  it("indexes for search the listed tokens' rows alone, whether the log's commits hold none of them, only them or both", () => {
    const plain = sampleToken().uuid;
    const searched = sampleToken({ request_limit: 100_000 }).uuid;
    const { db, writer } = caughtUpWriter(tmp(), [plain]);
    void sqliteTokens(db).create(sampleToken({ uuid: searched, request_limit: 100_000 }));
    expect(db.prepare('SELECT token_id FROM search_tokens').pluck().all()).toEqual([searched]);
    writer.catchUp();
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    const tables = ['search_keys', 'search_rows', 'search_fields', 'request_text'];
    // Every table of the search index holds exactly the searched token's requests.
    const indexed = () => {
      const own = `SELECT seq FROM requests WHERE token_id = '${searched}'`;
      return tables.map((t) => {
        const seq = t === 'request_text' ? 'rowid' : 'seq';
        return [count(`SELECT count(*) FROM ${t}`), count(`SELECT count(*) FROM ${t} WHERE ${seq} NOT IN (${own})`)];
      });
    };
    const rows = (n: number) => tables.map(() => [n, 0]);
    writer.commit([item(plain), item(plain)]);
    expect(writer.catchUp()).toBe(2);
    expect(indexed()).toEqual(rows(0));
    writer.commit([item(searched), item(searched)]);
    writer.commit([item(searched)]);
    expect(writer.catchUp()).toBe(3);
    expect(indexed()).toEqual(rows(3));
    writer.commit([item(plain), item(searched), item(plain)]);
    writer.commit([item(searched)]);
    expect(writer.catchUp()).toBe(4);
    expect(indexed()).toEqual(rows(5));
    expect(count(`SELECT count(*) FROM request_keys`)).toBe(9);
    // Keys from the log, several statements' runs of them: the same keys as from the rows.
    const methods = ['POST', 'GET', 'PUT'];
    writer.commit(Array.from({ length: 37 }, (_, i) => ({ row: toRow({ ...sampleRequest(searched), method: methods[i % 3]!, note: i % 5 ? null : 'n' }), limit: 100 })));
    expect(writer.catchUp()).toBe(37);
    expect(indexed()).toEqual(rows(42));
    const k = searchKeyInsert();
    expect(db.prepare(`SELECT * FROM search_keys ORDER BY token_number, sorting, seq`).raw().all()).toEqual(
      db.prepare(`SELECT ${k.values} FROM ${k.from} WHERE r.token_id = ? ORDER BY t.number, r.sorting, r.seq`).raw().all(searched),
    );
    db.close();
  });

  it("gives each token its newest request's UUID and time, from the log and from rows read back", () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer } = caughtUpWriter(tmp(), [a, b]);
    const at = (tokenId: string, createdAt: number) => ({ row: toRow({ ...sampleRequest(tokenId), created_at: createdAt }), limit: 100 });
    const latest = (uuid: string) => db.prepare('SELECT latest_request_id AS id, latest_request_at AS at FROM tokens WHERE uuid = ?').get(uuid);
    const first = [at(a, 1_000), at(b, 2_000), at(a, 3_000), at(b, 4_000), at(b, 5_000)];
    writer.commit(first.slice(0, 2));
    writer.commit(first.slice(2));
    expect(writer.catchUp()).toBe(5);
    expect(latest(a)).toEqual({ id: first[2]!.row[0], at: 3_000 });
    expect(latest(b)).toEqual({ id: first[4]!.row[0], at: 5_000 });
    // Rows the log cannot account for (one deleted before its catch-up): read back, same answer.
    const second = [at(a, 6_000), at(b, 7_000), at(a, 8_000)];
    writer.commit(second);
    db.prepare('DELETE FROM requests WHERE uuid = ?').run(second[2]!.row[0]);
    expect(writer.catchUp()).toBe(2);
    expect(latest(a)).toEqual({ id: second[0]!.row[0], at: 6_000 });
    expect(latest(b)).toEqual({ id: second[1]!.row[0], at: 7_000 });
    db.close();
  });

  it("catches up in chunks of at most maxRows, counting, trimming to the capture's limit and indexing as in one", () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    // Search-indexed tokens (above 10,000), so the chunks write their full-text entries too.
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a, b], 100_000);
    const items = Array.from({ length: 300 }, (_, i) => item(i % 3 ? a : b, 150));
    writer.commit(items.slice(0, 200));
    const chunks: number[] = [];
    while (chunks.push(writer.catchUp(true, 64)!) && !writer.caughtUp) {
      // Captures committed between chunks join the catch-up.
      if (chunks.length === 2) writer.commit(items.slice(200));
    }
    expect(chunks).toEqual([64, 64, 64, 64, 44]);
    expect(pendingCount(db)).toBe(0);
    // a: 200 captures, trimmed to the capture's limit (150), not the token's stored one.
    expect(stats(a)).toEqual({ n: 150, latest: items[299]!.row[0] });
    expect(stats(b)).toEqual({ n: 100, latest: items[297]!.row[0] });
    expect([keys(a), keys(b)]).toEqual([150, 100]);
    expect(db.prepare('SELECT count(*) FROM request_text t JOIN requests r ON r.seq = t.rowid').pluck().get()).toBe(250);
    expect(writer.catchUp(true, 64)).toBe(0);
    db.close();
  });

  describe("a chunked catch-up's search index, deferred to index steps", () => {
    const tables = ['search_keys', 'search_rows', 'search_fields', 'request_text'];
    /** Search-indexed tokens a (200 captures) and b (100), and a plain one (50), caught up in steps of 64 rows. */
    function deferred() {
      const [a, b, plain] = [sampleToken().uuid, sampleToken().uuid, sampleToken().uuid];
      // The plain token first: the search-indexed ones' numbers in tokens (the keys') then differ
      // from those search_tokens gives them (search_rows').
      const w = caughtUpWriter(tmp(), [plain]);
      for (const uuid of [a, b]) void sqliteTokens(w.db).create(sampleToken({ uuid, request_limit: 100_000 }));
      const items = Array.from({ length: 350 }, (_, i) => item(i % 7 === 6 ? plain : i % 3 ? a : b, 100_000));
      w.writer.commit(items);
      while (!(w.writer.catchUp(false, 64, true) !== null && w.writer.caughtUp));
      const count = (table: string) => w.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
      const newest = w.writer.newestSeq();
      return { ...w, a, b, plain, count, newest };
    }
    const k = searchKeyInsert();
    /** search_keys as the rows of the listed tokens give them (the catch-up's own statement). */
    const expectedKeys = (db: Database.Database) => db.prepare(`SELECT ${k.values} FROM ${k.from} WHERE r.token_id IN (SELECT token_id FROM search_tokens) ORDER BY t.number, r.sorting, r.seq`).raw().all();

    it('indexes each token at once in index steps, the reads waiting for them', () => {
      const { db, writer, count, newest } = deferred();
      // Caught up but for the search index: a read does not go past the deferred requests yet.
      expect(writer.indexDue).toBe(true);
      expect(tables.map(count)).toEqual([0, 0, 0, 0]);
      expect(writer.caughtTo).toBeLessThan(newest);
      // At least maxRows a step, whole tokens (one split when it has more than is left).
      const steps: number[] = [];
      while (writer.indexDue) steps.push(writer.index(false, 120)!);
      expect(steps.reduce((x, y) => x + y, 0)).toBe(300);
      expect(steps.every((n) => n >= 60)).toBe(true);
      expect(tables.map(count)).toEqual([300, 300, 300, 300]);
      expect(db.prepare('SELECT * FROM search_keys ORDER BY token_number, sorting, seq').raw().all()).toEqual(expectedKeys(db));
      expect(writer.caughtTo).toBe(newest);
      db.close();
    });

    it('runs as steps of the schedule once the catch-up steps took every row', async () => {
      const [a, b] = [sampleToken().uuid, sampleToken().uuid];
      const { db, writer } = caughtUpWriter(tmp(), [a, b], 100_000);
      const events: string[] = [];
      let caught = 0;
      const schedule = catchUpSchedule(writer, {
        waits: false,
        chunked: true,
        observe: (rows) => events.push(writer.indexDue ? `deferred ${rows}` : `step ${rows}`),
        caught: () => caught++,
      });
      writer.commit(Array.from({ length: 600 }, (_, i) => item(i % 2 ? a : b, 100_000)));
      schedule.committed(600);
      schedule.now();
      for (let i = 0; i < 200 && !caught; i++) await new Promise((r) => setImmediate(r));
      // Steps of 128 rows then a quarter of the rest at least, the search index deferred; then the
      // index steps (0 rows caught up), the last one leaving nothing deferred.
      const rows = events.map((e) => Number(e.split(' ')[1]));
      const firstIndexStep = rows.indexOf(0);
      expect(events[0]).toBe('deferred 150');
      expect(rows.slice(0, firstIndexStep).reduce((x, y) => x + y, 0)).toBe(600);
      expect(rows.slice(firstIndexStep).every((n) => n === 0)).toBe(true);
      expect(events.at(-1)).toBe('step 0');
      expect([caught, writer.indexDue, writer.caughtTo]).toEqual([1, false, writer.newestSeq()]);
      expect(tables.map((t) => db.prepare(`SELECT count(*) FROM ${t}`).pluck().get())).toEqual([600, 600, 600, 600]);
      db.close();
    });

    it('runs an index step before the catch-up steps took every row when a read waits for their requests', async () => {
      const [a, b] = [sampleToken().uuid, sampleToken().uuid];
      const { db, writer } = caughtUpWriter(tmp(), [a, b], 100_000);
      const events: string[] = [];
      let caught = 0;
      // A read waiting for the first 100 rows, which the first step (150 rows) takes.
      const waitsFor = () => 100 > writer.caughtTo && 100 <= writer.takenTo;
      const schedule = catchUpSchedule(writer, {
        waits: false,
        chunked: true,
        observe: (rows) => events.push(`${rows ? 'step' : 'index'} ${writer.caughtTo}`),
        caught: () => caught++,
        indexWanted: waitsFor,
      });
      writer.commit(Array.from({ length: 600 }, (_, i) => item(i % 2 ? a : b, 100_000)));
      schedule.committed(600);
      schedule.now();
      for (let i = 0; i < 200 && !caught; i++) await new Promise((r) => setImmediate(r));
      // The index step right after the first catch-up step: its rows caught up, search index and all.
      expect(events.slice(0, 2)).toEqual(['step 0', 'index 150']);
      expect([caught, writer.indexDue, writer.caughtTo]).toEqual([1, false, writer.newestSeq()]);
      db.close();
    });

    it('makes a read that comes between the last catch-up step and the index steps wait for them', async () => {
      const a = sampleToken().uuid;
      const { db } = caughtUpWriter(tmp(), [a], 100_000);
      const captures = inThreadWriter(db);
      await Promise.all(Array.from({ length: 600 }, () => captures.write(sampleRequest(a), 100_000)));
      const indexed = () => db.prepare('SELECT count(*) FROM search_keys').pluck().get();
      let caughtUp = 0;
      let seen: unknown;
      const read = new Promise<void>((resolve) => {
        captures.onCatchUp = (rows) => {
          caughtUp += rows;
          // Right after the step that took the last row, before the schedule's next step.
          if (caughtUp === 600 && rows) setImmediate(() => void captures.sync(a).then(() => resolve(void (seen = indexed()))));
        };
      });
      void captures.sync();
      await read;
      expect(seen).toBe(600);
      await captures.close();
      db.close();
    });

    it('keeps what a failed index step took for the next one', () => {
      const { db, writer, count } = deferred();
      db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.search_fields BEGIN SELECT RAISE(ABORT, 'refused'); END");
      expect(() => writer.index(false, 1000)).toThrow(/refused/);
      expect([writer.indexDue, ...tables.map(count)]).toEqual([true, 0, 0, 0, 0]);
      db.exec('DROP TRIGGER temp.refuse');
      expect(writer.index(false, 1000)).toBe(300);
      expect([writer.indexDue, ...tables.map(count)]).toEqual([false, 300, 300, 300, 300]);
      db.close();
    });

    it('is indexed by a catch-up that is not chunked, before its own rows', () => {
      const { db, writer, a, count, newest } = deferred();
      writer.commit([item(a, 100_000)]);
      expect(writer.catchUp()).toBe(1);
      expect([writer.indexDue, ...tables.map(count)]).toEqual([false, 301, 301, 301, 301]);
      expect(writer.caughtTo).toBe(newest + 1);
      db.close();
    });

    it('is filled again, from the newest request, by the next writer when a process stopped before its index steps', () => {
      const { db } = deferred();
      const file = db.name;
      db.close();
      const again = new Database(file);
      const writer = createBatchWriter(again);
      const filling = () => again.prepare('SELECT count(*) FROM search_tokens WHERE fill_sorting IS NOT NULL').pluck().get();
      expect(filling()).toBe(2);
      while (writer.filling) writer.catchUp();
      expect(filling()).toBe(0);
      expect(tables.map((t) => again.prepare(`SELECT count(*) FROM ${t}`).pluck().get())).toEqual([300, 300, 300, 300]);
      expect(again.prepare('SELECT * FROM search_keys ORDER BY token_number, sorting, seq').raw().all()).toEqual(expectedKeys(again));
      // A writer started on an index with nothing deferred leaves it as it is.
      createBatchWriter(again);
      expect(filling()).toBe(0);
      again.close();
    });
  });

  it('counts each chunk from what it committed, a row gone before its chunk included', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a, b]);
    const first = Array.from({ length: 10 }, (_, i) => item(i % 2 ? a : b));
    const second = Array.from({ length: 10 }, () => item(b));
    writer.commit(first);
    writer.commit(second);
    // The first commit's rows, and half of the second's (a commit split between chunks).
    expect(writer.catchUp(true, 15)).toBe(15);
    expect(writer.caughtUp).toBe(false);
    expect(stats(a)).toEqual({ n: 5, latest: first[9]!.row[0] });
    expect(stats(b)).toEqual({ n: 10, latest: second[4]!.row[0] });
    // Only b has rows pending: a read of a need not wait.
    expect([writer.nonePendingFor(a), writer.nonePendingFor(b)]).toEqual([true, false]);
    db.prepare('DELETE FROM requests WHERE uuid = ?').run(second[7]!.row[0]);
    expect(writer.catchUp(true, 15)).toBe(4);
    expect(writer.caughtUp).toBe(true);
    expect(stats(b)).toEqual({ n: 14, latest: second[9]!.row[0] });
    expect([keys(a), keys(b)]).toEqual([5, 14]);
    expect(writer.nonePendingFor(b)).toBe(true);
    db.close();
  });

  it('leaves the trims to trim() when asked, which takes at most maxRows a step (a quarter more rather than leave less), oldest first', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a, b]);
    const items = Array.from({ length: 30 }, (_, i) => item(i % 3 ? a : b, 4));
    writer.commit(items);
    expect(writer.catchUp(true, Number.MAX_SAFE_INTEGER, true)).toBe(30);
    // Caught up and counted, not trimmed yet: the tokens wait for it, and say so.
    expect(writer.caughtUp).toBe(true);
    expect(writer.trimsDue).toBe(true);
    expect(writer.nonePendingFor(a)).toBe(false);
    expect([stats(a), keys(a)]).toEqual([{ n: 20, latest: items[29]!.row[0] }, 20]);
    const steps: number[] = [];
    while (writer.trimsDue) steps.push(writer.trim(true, 10)!);
    // 22 to trim: 10, then the 12 left (2 more than 10 rather than a step for 2).
    expect(steps).toEqual([10, 12]);
    expect([stats(a), stats(b)]).toEqual([
      { n: 4, latest: items[29]!.row[0] },
      { n: 4, latest: items[27]!.row[0] },
    ]);
    expect([keys(a), keys(b)]).toEqual([4, 4]);
    const left = db.prepare('SELECT uuid FROM requests ORDER BY seq').pluck().all();
    expect(new Set(left)).toEqual(new Set([...items.filter((_, i) => i % 3).slice(-4), ...items.filter((_, i) => !(i % 3)).slice(-4)].map((i) => i.row[0])));
    expect(writer.nonePendingFor(a)).toBe(true);
    // A catch-up that trims in its own transaction also takes what earlier ones left.
    writer.commit([item(a, 2)]);
    expect(writer.catchUp(true, Number.MAX_SAFE_INTEGER, true)).toBe(1);
    writer.commit([item(b, 4)]);
    expect(writer.catchUp()).toBe(1);
    expect(writer.trimsDue).toBe(false);
    expect([stats(a).n, stats(b).n, keys(a), keys(b)]).toEqual([2, 4, 2, 4]);
    db.close();
  });

  it('keeps a token listed for trimming when its trim step fails, and trims it on the next', () => {
    const a = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a]);
    writer.commit(Array.from({ length: 6 }, () => item(a, 4)));
    writer.catchUp(true, Number.MAX_SAFE_INTEGER, true);
    db.exec("CREATE TEMP TRIGGER no_deletes BEFORE DELETE ON main.requests BEGIN SELECT RAISE(ABORT, 'no deletes'); END");
    expect(() => writer.trim()).toThrow('no deletes');
    // Rolled back: nothing trimmed, and the token still waits for it.
    expect([writer.trimsDue, stats(a).n, keys(a)]).toEqual([true, 6, 6]);
    db.exec('DROP TRIGGER temp.no_deletes');
    expect(writer.trim()).toBe(2);
    expect([writer.trimsDue, stats(a).n, keys(a)]).toEqual([false, 4, 4]);
    db.close();
  });

  it('runs a chunked catch-up as steps, committing the captures that came in before each next one, its last step trimming', async () => {
    const a = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a]);
    const events: string[] = [];
    let yielded = false;
    const schedule = catchUpSchedule(writer, {
      waits: false,
      chunked: true,
      observe: (rows) => events.push(writer.trimsDue ? `catch-up ${rows}` : `step ${rows}`),
      // Once, a capture waiting: committed between the steps, not taken by the steps already due.
      yieldTo() {
        if (yielded) return false;
        yielded = true;
        events.push('commit');
        schedule.committed(writer.commit([item(a, 4)]).length);
        return true;
      },
      progress: () => events.push('progress'),
      caught: () => events.push('caught'),
    });
    writer.commit(Array.from({ length: 200 }, () => item(a, 4)));
    schedule.committed(200);
    schedule.now();
    // A first step of 128 rows, trims due; the next step only after this event-loop turn.
    expect(events).toEqual(['catch-up 128']);
    expect(stats(a).n).toBe(128);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // After the capture that came in, the trim step (0 rows caught up: the first step took past 16
    // rows a token), then the last step: it takes the rest with that capture and trims in its
    // transaction (no trim step of its own).
    expect(events).toEqual(['catch-up 128', 'commit', 'step 0', 'progress', 'step 73', 'progress', 'caught']);
    expect([stats(a).n, keys(a), pendingCount(db)]).toEqual([4, 4, 0]);
    expect(schedule.behind).toBe(0);
    db.close();
  });

  it("leaves a chunked catch-up's trims to its last step, unless its steps took 16 rows a token waiting", async () => {
    const tokens = Array.from({ length: 20 }, () => sampleToken().uuid);
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), tokens);
    const run = async (perToken: number) => {
      const events: string[] = [];
      const schedule = catchUpSchedule(writer, {
        waits: false,
        chunked: true,
        observe: (rows) => events.push(rows ? `catch-up ${rows}${writer.trimsDue ? ', trims due' : ''}` : 'trim step'),
      });
      const items = Array.from({ length: perToken * tokens.length }, (_, i) => item(tokens[i % tokens.length]!, 4));
      writer.commit(items);
      // On its timer (CATCH_UP_MS), not asked by a read: a first step of 128 rows, then the rest.
      schedule.committed(items.length);
      await new Promise((r) => setTimeout(r, 400));
      expect(tokens.map((t) => [stats(t).n, keys(t)])).toEqual(tokens.map(() => [4, 4]));
      expect(pendingCount(db)).toBe(0);
      return events;
    };
    // 128 rows for 20 tokens over their limit: under 16 a token, the trims wait for the last step,
    // which trims in its transaction.
    expect(await run(10)).toEqual(['catch-up 128, trims due', 'catch-up 72']);
    // A first step of 1,000 rows (a quarter of what waits) for 20 tokens: past 16 a token, the
    // trims go next, before the catch-up's next step.
    expect((await run(200)).slice(0, 3)).toEqual(['catch-up 1000, trims due', 'trim step', expect.stringMatching(/^catch-up /)]);
    db.close();
  });

  it('rejects captures of a token another connection deleted since its last batch', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const file = tmp();
    const { db, writer } = caughtUpWriter(file, [a, b]);
    expect(writer.commit([item(a), item(b)])).toEqual([null, null]);
    const other = new Database(file);
    other.prepare('DELETE FROM tokens WHERE uuid = ?').run(a);
    other.close();
    expect(writer.commit([item(b), item(a), item(b)])).toEqual([null, { gone: true }, null]);
    db.close();
  });

  it('stores every good capture of a batch once when one of them fails (the rows go in by runs)', () => {
    const a = sampleToken().uuid;
    const { db, writer } = caughtUpWriter(tmp(), [a]);
    const items = Array.from({ length: 5 }, () => item(a));
    expect(items.every((i) => i.row.length === PLAIN_COLUMNS)).toBe(true);
    // A row SQLite refuses (NOT NULL), in the middle of one run: the rows before it in the run
    // must not stay twice, nor those after it be lost.
    const bad = { ...items[2]!, row: items[2]!.row.map((v, i) => (i === REQUEST_ROW.position('headers') ? null : v)) };
    const outcomes = writer.commit([items[0]!, items[1]!, bad, items[3]!, items[4]!]);
    expect(outcomes.map((o) => o === null)).toEqual([true, true, false, true, true]);
    const stored = db.prepare('SELECT uuid FROM requests ORDER BY seq').pluck().all();
    expect(stored).toEqual([0, 1, 3, 4].map((i) => items[i]!.row[0]));
    db.close();
  });

  it('trims each token to the limit its captures came with, oldest first', () => {
    const a = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a]);
    const items = Array.from({ length: 7 }, () => item(a, 4));
    writer.commit(items);
    writer.catchUp();
    expect(stats(a)).toMatchObject({ n: 4 });
    expect(keys(a)).toBe(4);
    const left = db.prepare('SELECT uuid FROM requests ORDER BY seq').all() as Array<{ uuid: string }>;
    expect(left.map((r) => r.uuid)).toEqual(items.slice(3).map((i) => i.row[0]));
    db.close();
  });

  it('trims a token whose count runs ahead of its keys to its newest key, beside one trimmed by its n-th oldest', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stats, keys } = caughtUpWriter(tmp(), [a, b]);
    writer.commit([...Array.from({ length: 4 }, () => item(a, 4)), ...Array.from({ length: 4 }, () => item(b, 4))]);
    writer.catchUp();
    // a's count says 10 while it has 4 keys: the next capture makes it 11, 7 to trim, 5 keys to trim them by.
    db.prepare('UPDATE tokens SET request_count = 10 WHERE uuid = ?').run(a);
    const bItems = Array.from({ length: 2 }, () => item(b, 4));
    writer.commit([item(a, 4), ...bItems]);
    writer.catchUp();
    const rowsOf = (uuid: string) => db.prepare('SELECT uuid FROM requests WHERE token_id = ? ORDER BY seq').pluck().all(uuid);
    expect([stats(a).n, keys(a), rowsOf(a)]).toEqual([4, 0, []]);
    expect([stats(b).n, keys(b), rowsOf(b).slice(2)]).toEqual([4, 4, bItems.map((i) => i.row[0])]);
    expect(db.prepare('SELECT count(*) FROM request_ids').pluck().get()).toBe(4);
    db.close();
  });

  it('trims to the limit the captures came with whether it knows them from its commits, in steps or not', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const c = sampleToken().uuid;
    // Tokens stored with a limit of 100: the captures' limits differ and decide.
    const { db, writer } = writerOn(tmp(), [a, b, c], 100);
    const keys = (uuid: string) => db.prepare('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)').pluck().get(uuid);
    // Before any catch-up the writer cannot vouch for what is pending: the rows are read back.
    writer.commit(Array.from({ length: 6 }, () => item(a, 2)));
    writer.catchUp();
    expect(keys(a)).toBe(2);
    // From its own commits, the newest capture's limit counting, taken in steps of 3 rows.
    writer.commit([...Array.from({ length: 5 }, () => item(b, 4)), item(b, 3), ...Array.from({ length: 4 }, () => item(c, 1))]);
    while (writer.catchUp(true, 3) && !writer.caughtUp);
    writer.trim();
    expect([keys(b), keys(c)]).toEqual([3, 1]);
    db.close();
  });
});

describe('trimmed rows and their sweep (migration 26)', () => {
  const item = (tokenId: string, limit: number) => ({ row: toRow(sampleRequest(tokenId)), limit });
  const uuidOf = (i: { row: unknown[] }) => i.row[0] as string;
  /** A writer keeping `backlog` trimmed rows, and what the store's reads by UUID see (SEQ_OF_UUID). */
  function sweeping(tokens: string[], backlog: number, requestLimit?: number) {
    const { db } = writerOn(tmp(), tokens, requestLimit);
    const writer = createBatchWriter(db, { trimmedBacklog: backlog });
    writer.catchUp();
    const byUuid = db.prepare(`SELECT uuid FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`).pluck();
    const seen = (tokenId: string, i: { row: unknown[] }) => byUuid.get({ t: tokenId, u: uuidOf(i) }) !== undefined;
    const stored = (i: { row: unknown[] }) => db.prepare('SELECT count(*) FROM requests WHERE uuid = ?').pluck().get(uuidOf(i)) === 1;
    const listed = () => db.prepare('SELECT r.uuid FROM request_trimmed d JOIN requests r ON r.seq = d.seq ORDER BY d.seq').pluck().all();
    const count = (sql: string, ...p: unknown[]) =>
      db
        .prepare(sql)
        .pluck()
        .get(...p) as number;
    return { db, writer, seen, stored, listed, count };
  }

  it('takes a trimmed request out of every read at once and deletes its row later, oldest first beyond the backlog', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, seen, stored, listed, count } = sweeping([a, b], 4);
    const first = Array.from({ length: 10 }, (_, i) => item(i % 2 ? b : a, 3));
    writer.commit(first);
    writer.catchUp();
    // Each token keeps its newest 3: the oldest 2 of each are trimmed, their rows listed, none swept yet.
    const trimmed = [first[0]!, first[1]!, first[2]!, first[3]!];
    expect(listed()).toEqual(trimmed.map(uuidOf));
    expect(trimmed.map(stored)).toEqual([true, true, true, true]);
    expect(trimmed.map((i, n) => seen(n % 2 ? b : a, i))).toEqual([false, false, false, false]);
    expect(first.slice(4).map((i, n) => seen(n % 2 ? b : a, i))).toEqual(Array(6).fill(true));
    expect([count('SELECT request_count FROM tokens WHERE uuid = ?', a), count('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', a)]).toEqual([3, 3]);
    expect(count('SELECT count(*) FROM request_ids')).toBe(10);
    // Four more for a: its four oldest go, eight are listed, and the sweep deletes the four oldest
    // listed rows (their UUID index entries with them), keeping the backlog of four.
    const second = Array.from({ length: 4 }, () => item(a, 3));
    writer.commit(second);
    writer.catchUp();
    expect(listed()).toEqual([first[4]!, first[6]!, first[8]!, second[0]!].map(uuidOf));
    expect(trimmed.map(stored)).toEqual([false, false, false, false]);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids')]).toEqual([10, 10]);
    expect(second.slice(1).every((i) => seen(a, i))).toBe(true);
    db.close();
  });

  it('sweeps UUID entries, files and list entries with the rows, and leaves deletions any other way their per-row cleanup', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stored, listed, count } = sweeping([a, b], 2);
    const files = new Map([['f1', Buffer.from('file')]]);
    const withFiles = (tokenId: string) => ({ ...item(tokenId, 2), files });
    // a: 4 with files, kept 2; b: 3, kept 2. Trimmed: a's two oldest, b's oldest; past the backlog
    // of 2, the oldest of them is swept with its UUID entry and files.
    const first = [withFiles(a), item(b, 2), withFiles(a), item(b, 2), withFiles(a), item(b, 2), withFiles(a)];
    writer.commit(first);
    writer.catchUp();
    expect(listed()).toEqual([first[1]!, first[2]!].map(uuidOf));
    expect(stored(first[0]!)).toBe(false);
    expect([count('SELECT count(*) FROM request_ids WHERE uuid = ?', uuidOf(first[0]!)), count('SELECT count(*) FROM request_files WHERE request_uuid = ?', uuidOf(first[0]!))]).toEqual([0, 0]);
    expect([count('SELECT count(*) FROM request_files'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_trimmed')]).toEqual([3, 6, 2]);
    expect(count('SELECT upto FROM request_sweep')).toBe(0);
    // A listed row deleted another way (a token's deletion) takes its entries with it, keys of kept rows too.
    db.prepare('DELETE FROM requests WHERE token_id = ?').run(a);
    expect([count('SELECT count(*) FROM request_files'), count('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', a)]).toEqual([0, 0]);
    expect(listed()).toEqual([first[1]!].map(uuidOf));
    expect([count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_trimmed')]).toEqual([3, 1]);
    db.close();
  });

  it("deletes a trim step's rows at once when they are most of the rows of their range, and lists them when many kept rows lie among them", () => {
    const [a, b, c, d] = [sampleToken().uuid, sampleToken().uuid, sampleToken().uuid, sampleToken().uuid];
    const { db, writer, seen, stored, listed, count } = sweeping([a, b, c, d], 10_000);
    const files = new Map([['f1', Buffer.from('file')]]);
    // 40 each for a, b and c in turn, 10 kept each: the 90 oldest rows, alone in their seqs, go at once.
    const first = Array.from({ length: 120 }, (_, i) => ({ ...item([a, b, c][i % 3]!, 10), ...(i % 2 ? { files } : {}) }));
    writer.commit(first);
    writer.catchUp();
    expect(listed()).toEqual([]);
    expect([first[0]!, first[89]!, first[90]!].map(stored)).toEqual([false, false, true]);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_keys')]).toEqual([30, 30, 30]);
    expect(count('SELECT count(*) FROM request_files')).toBe(15);
    expect(first.slice(90).every((i, n) => seen([a, b, c][n % 3]!, i))).toBe(true);
    expect(count('SELECT sum(request_count) FROM tokens WHERE uuid IN (?, ?, ?)', a, b, c)).toBe(30);
    // 30 more each, c's with a limit of 25 (c trims at another pace): the 75 trimmed go at once, c's
    // kept captures among them stay.
    const second = Array.from({ length: 90 }, (_, i) => ({ ...item([a, b, c][i % 3]!, i % 3 === 2 ? 25 : 10), ...(i % 3 === 2 ? { files } : {}) }));
    writer.commit(second);
    writer.catchUp();
    expect(listed()).toEqual([]);
    expect(first.slice(90).some(stored)).toBe(false);
    const secondOfC = second.filter((_, i) => i % 3 === 2);
    expect([secondOfC.slice(0, 5).some(stored), secondOfC.slice(5).every((i) => stored(i) && seen(c, i))]).toEqual([false, true]);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_keys')]).toEqual([45, 45, 45]);
    expect(count('SELECT count(*) FROM request_files')).toBe(25);
    // 20 more each for a and b, every other capture d's: c's and d's kept captures lie among the 40
    // trimmed, which are listed for the sweep.
    const third = Array.from({ length: 80 }, (_, i) => (i % 2 ? item(d, 1000) : item([a, b][(i / 2) % 2]!, 10)));
    writer.commit(third);
    writer.catchUp();
    expect(listed()).toHaveLength(40);
    const keptOfAB = second.slice(60).filter((_, i) => i % 3 !== 2);
    expect(keptOfAB.every(stored)).toBe(true);
    expect(keptOfAB.some((i, n) => seen([a, b][n % 2]!, i))).toBe(false);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_keys')]).toEqual([125, 85]);
    db.close();
  });

  it("cuts a trim step short by an equal share of every token's excess, whose rows go at once", () => {
    const tokens = [sampleToken().uuid, sampleToken().uuid, sampleToken().uuid, sampleToken().uuid];
    const { db, writer, listed, count } = sweeping(tokens, 10_000);
    // 60 each in turn, 10 kept each: 200 to trim, left to trim steps of 100: the oldest 25 of each
    // (the oldest 100 rows), then the rest.
    const items = Array.from({ length: 240 }, (_, i) => item(tokens[i % 4]!, 10));
    writer.commit(items);
    writer.catchUp(true, Number.MAX_SAFE_INTEGER, true, 0);
    expect(writer.trim(true, 100)).toBe(100);
    expect(listed()).toEqual([]);
    expect(db.prepare('SELECT min(seq) FROM requests').pluck().get()).toBe(101);
    expect(count('SELECT min(request_count) FROM tokens')).toBe(35);
    expect(writer.trim(true)).toBe(100);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_keys'), count('SELECT count(*) FROM request_trimmed')]).toEqual([40, 40, 40, 0]);
    db.close();
  });

  it("deletes a trim step's rows at once among the kept requests of a token the step before trimmed", () => {
    const [a, b, c, d] = [sampleToken().uuid, sampleToken().uuid, sampleToken().uuid, sampleToken().uuid];
    const { db, writer, seen, stored, listed, count } = sweeping([a, b, c, d], 10_000);
    // 40 each in turn, 10 kept each; then 30 more each for b, c and d only: their 90 oldest, a's 10
    // kept requests among them (a trimmed by the step before, not by this one), go at once.
    const first = Array.from({ length: 160 }, (_, i) => item([a, b, c, d][i % 4]!, 10));
    writer.commit(first);
    writer.catchUp();
    expect([listed(), count('SELECT count(*) FROM requests')]).toEqual([[], 40]);
    const second = Array.from({ length: 90 }, (_, i) => item([b, c, d][i % 3]!, 10));
    writer.commit(second);
    writer.catchUp();
    expect(listed()).toEqual([]);
    const keptOfA = first.slice(120).filter((_, i) => i % 4 === 0);
    expect(keptOfA.every((i) => stored(i) && seen(a, i))).toBe(true);
    expect(second.slice(60).every((i, n) => seen([b, c, d][n % 3]!, i))).toBe(true);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_keys')]).toEqual([40, 40, 40]);
    db.close();
  });

  it("deletes a trim step's rows at once with the rows a lowering listed among them", () => {
    const [a, b, e] = [sampleToken().uuid, sampleToken().uuid, sampleToken().uuid];
    const { db, writer, listed, count } = sweeping([a, b, e], 10_000);
    // 50 each in turn, a and b keeping 10; e's limit lowered to 10 before the trims: its oldest 40
    // listed for its own sweep, then a's and b's oldest 40, among which they lie but the newest.
    const items = Array.from({ length: 150 }, (_, i) => item([a, b, e][i % 3]!, i % 3 === 2 ? 1000 : 10));
    writer.commit(items);
    writer.catchUp(true, Number.MAX_SAFE_INTEGER, true, 0);
    writer.trimTo(e, 10);
    expect(writer.trim(true, 40)).toBe(40);
    expect(listed()).toHaveLength(40);
    expect(writer.trim(true)).toBe(80);
    expect(listed()).toEqual([uuidOf(items[119]!)]);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_keys')]).toEqual([31, 31, 30]);
    expect(writer.sweep(true)).toBe(1);
    expect([count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_trimmed')]).toEqual([30, 30, 0]);
    db.close();
  });

  it('sweeps rows alone in their range by ranges and rows among kept ones one by one, leaving nothing of either behind', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stored, listed, count } = sweeping([a, b], 0);
    const files = new Map([['f1', Buffer.from('file')]]);
    // UUIDv7-like IDs by millisecond, given out of seq order: the range of the first and last swept
    // rows' milliseconds can miss another's, and other rows' can widen it past theirs.
    let serial = 0;
    const at = (ms: number, tokenId: string, limit: number, withFiles = false) => ({
      row: toRow(sampleRequest(tokenId, { uuid: `${ms.toString(16).padStart(8, '0')}-0000-7000-8000-${String(++serial).padStart(12, '0')}` })),
      limit,
      ...(withFiles ? { files } : {}),
    });
    const left = () => [count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_files'), count('SELECT count(*) FROM request_trimmed')];
    // a keeps 1 of 4, its 3 oldest alone in their seq range: swept by ranges, the middle one's UUID
    // entry apart (it lies outside the range).
    const alone = [at(10, a, 1, true), at(90, a, 1), at(11, a, 1, true), at(12, a, 1)];
    writer.commit(alone);
    writer.catchUp();
    expect(alone.map(stored)).toEqual([false, false, false, true]);
    expect(listed()).toEqual([]);
    expect(left()).toEqual([1, 1, 0, 0]);
    // b's 100 kept rows, stored after a's next ones, lie in the UUID range of a's next trimmed rows
    // (ms 12 to 80): too wide, a's rows go one by one.
    const wide = [at(20, a, 1, true), at(80, a, 1), at(81, a, 1)];
    writer.commit(wide);
    writer.commit(Array.from({ length: 100 }, (_, i) => at(30 + (i % 40), b, 1000)));
    writer.catchUp();
    expect([...wide, alone[3]!].map(stored)).toEqual([false, false, true, false]);
    expect(left()).toEqual([101, 101, 0, 0]);
    // a's trimmed rows among b's kept ones: one by one, b's untouched.
    const among = [at(200, a, 1, true), at(201, b, 1000), at(202, a, 1, true), at(203, b, 1000), at(204, a, 1)];
    writer.commit(among);
    writer.catchUp();
    expect([...among, wide[2]!].map(stored)).toEqual([false, true, false, true, true, false]);
    expect(left()).toEqual([103, 103, 0, 0]);
    expect(count('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', b)).toBe(102);
    expect(db.prepare('SELECT upto, ids_upto FROM request_sweep').raw().get()).toEqual([0, 0]);
    db.close();
  });

  it("deletes a search-indexed token's trimmed requests at once, and the next catch-up purges their full text", () => {
    const a = sampleToken().uuid;
    // A token allowed 20,000 requests is search-indexed; its captures came with a limit of 3. A
    // search reads its full-text candidates' rows directly, so such rows are not left to the sweep.
    const { db, writer, stored, listed, count } = sweeping([a], 100, 20_000);
    const items = Array.from({ length: 5 }, () => item(a, 3));
    writer.commit(items);
    writer.catchUp();
    expect([stored(items[0]!), stored(items[1]!), stored(items[2]!)]).toEqual([false, false, true]);
    expect(listed()).toEqual([]);
    expect([count('SELECT count(*) FROM search_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', a), count('SELECT count(*) FROM request_text_stale')]).toEqual([3, 2]);
    // The purge had found nothing listed before: the trim wakes it for the next catch-up.
    writer.catchUp();
    expect([count('SELECT count(*) FROM request_text'), count('SELECT count(*) FROM request_text_stale')]).toEqual([3, 0]);
    db.close();
  });

  it('lowering a limit (trimTo) takes the requests out of the reads and search index, and leaves every row to its own sweep', () => {
    const a = sampleToken().uuid;
    // Search-indexed (allowed 20,000): 8 requests, lowered to 2.
    const { db, writer, seen, stored, listed, count } = sweeping([a], 100, 20_000);
    const items = Array.from({ length: 8 }, () => item(a, 100));
    writer.commit(items);
    writer.catchUp();
    writer.trimTo(a, 2);
    expect([writer.trimsDue, writer.sweepDue]).toEqual([true, false]);
    expect(writer.trim()).toBe(6);
    // Out of every read at once: keys, search keys, dense rows, UUID reads; full text listed for the purge.
    expect([writer.trimsDue, writer.sweepDue]).toEqual([false, true]);
    expect(items.map((i) => seen(a, i))).toEqual([...Array(6).fill(false), true, true]);
    expect(items.map(stored)).toEqual(Array(8).fill(true));
    expect([count('SELECT request_count FROM tokens WHERE uuid = ?', a), count('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', a)]).toEqual([2, 2]);
    expect([
      count('SELECT count(*) FROM search_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', a),
      count('SELECT count(*) FROM search_rows'),
      count('SELECT count(*) FROM request_text_stale'),
    ]).toEqual([2, 2, 6]);
    expect(listed()).toEqual(items.slice(0, 6).map(uuidOf));
    // The sweep, whatever the backlog (100), in steps: every listed row up to the lowering's newest.
    expect(writer.sweep(true, 4)).toBe(4);
    expect(writer.sweepDue).toBe(true);
    expect(writer.sweep(true, 4)).toBe(2);
    expect(writer.sweepDue).toBe(false);
    expect(listed()).toEqual([]);
    expect(items.map(stored)).toEqual([...Array(6).fill(false), true, true]);
    // The next catch-up purges their full-text entries.
    writer.catchUp();
    expect([count('SELECT count(*) FROM request_text'), count('SELECT count(*) FROM request_text_stale')]).toEqual([2, 0]);
    db.close();
  });

  it('sweeps the runs of listed rows that other rows lie between by their ranges, and the rows of short runs one by one', () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const c = sampleToken().uuid;
    const { db, writer, stored, listed, count } = sweeping([a, b, c], 100);
    // Rows the sweep deletes one by one, each running the cleanup trigger's body (by range, its
    // condition is false): counted by a trigger of this connection's with the same condition.
    db.exec(`CREATE TEMP TABLE one_by_one (seq INTEGER);
      CREATE TEMP TRIGGER one_by_one_each AFTER DELETE ON main.requests WHEN OLD.seq > (SELECT ids_upto FROM request_sweep) BEGIN INSERT INTO one_by_one VALUES (OLD.seq); END;`);
    const oneByOne = () => count('SELECT count(*) FROM temp.one_by_one');
    const left = () => [count('SELECT count(*) FROM requests'), count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_trimmed')];
    // a: runs of 100 and 80 with b's kept rows between them, then a run of 10 after c's (deleted
    // meanwhile: a gap, not rows); c's rows gone another way leave gaps among b's.
    const runs = [Array.from({ length: 100 }, () => item(a, 1000)), Array.from({ length: 80 }, () => item(a, 1000)), Array.from({ length: 10 }, () => item(a, 1000))];
    const between = Array.from({ length: 20 }, () => item(b, 1000));
    const gone = Array.from({ length: 300 }, () => item(c, 1000));
    const newest = Array.from({ length: 5 }, () => item(a, 1000));
    writer.commit(runs[0]!);
    writer.commit(between);
    writer.commit(runs[1]!);
    writer.commit(gone);
    writer.commit(runs[2]!);
    writer.commit(between.slice(0, 1).map(() => item(b, 1000)));
    writer.commit(newest);
    writer.catchUp();
    db.prepare('DELETE FROM requests WHERE token_id = ?').run(c);
    writer.trimTo(a, 5);
    expect(writer.trim()).toBe(190);
    expect(listed()).toHaveLength(190);
    expect(oneByOne()).toBe(300);
    // Budget for 150 rows: the first run by its range, then 50 of the second (alone but for the gap
    // c's rows left) by theirs.
    expect(writer.sweep(true, 150)).toBe(150);
    expect(oneByOne()).toBe(300);
    expect([...runs[0]!, ...runs[1]!.slice(0, 50)].some(stored)).toBe(false);
    expect([...runs[1]!.slice(50), ...runs[2]!, ...between, ...newest].every(stored)).toBe(true);
    // The rest: 30 of the second run and c's gap before the third, alone by their range (fewer
    // seqs listed than half the range's: read to tell gaps from rows); then nothing is left.
    expect(writer.sweep(true, 1000)).toBe(40);
    expect(oneByOne()).toBe(300);
    expect(writer.sweepDue).toBe(false);
    expect([...runs[1]!, ...runs[2]!].some(stored)).toBe(false);
    expect([...between, ...newest].every(stored)).toBe(true);
    expect(left()).toEqual([26, 26, 0]);
    // A run shorter than ALONE_MIN_ROWS between other rows: one by one.
    const short = Array.from({ length: 10 }, () => item(a, 1000));
    writer.commit(short);
    writer.commit([item(b, 1000)]);
    writer.commit(Array.from({ length: 10 }, () => item(a, 1000)));
    writer.catchUp();
    writer.trimTo(a, 5);
    expect(writer.trim()).toBe(20);
    expect(writer.sweep(true, 1000)).toBe(20);
    expect(oneByOne()).toBe(320);
    expect(left()).toEqual([27, 27, 0]);
    expect(db.prepare('SELECT upto, ids_upto FROM request_sweep').raw().get()).toEqual([0, 0]);
    expect(count('SELECT count(*) FROM request_keys WHERE token_number = (SELECT number FROM tokens WHERE uuid = ?)', a)).toBe(5);
    db.close();
  });

  it("deletes a token's trimmed rows with the token, and takes them off the list", async () => {
    const a = sampleToken().uuid;
    const b = sampleToken().uuid;
    const { db, writer, stored, listed } = sweeping([a, b], 100);
    const items = Array.from({ length: 10 }, (_, i) => item(i % 2 ? b : a, 3));
    writer.commit(items);
    writer.catchUp();
    expect(listed()).toHaveLength(4);
    expect(await sqliteTokens(db).delete(a)).toBe(true);
    expect(db.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(a)).toBe(0);
    expect(listed()).toEqual([items[1]!, items[3]!].map(uuidOf));
    expect(stored(items[1]!)).toBe(true);
    db.close();
  });
});

describe('migration 13 (UUID index filled by the catch-up)', () => {
  it('indexes the caught-up requests by UUID, leaves pending ones to the catch-up, keeps files and drops the unique index', async () => {
    const file = tmp();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const upTo = (v: number) => {
      for (const m of migrations.filter((m) => m.version <= v)) {
        db.exec(m.up);
        db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(m.version, 0);
      }
    };
    upTo(12);
    const t = sampleToken();
    // The token as version 12 stored it: only the columns its table had (later migrations add more).
    const known = new Set((db.prepare('PRAGMA table_info(tokens)').all() as Array<{ name: string }>).map((c) => c.name));
    const tokenRow = Object.fromEntries(
      Object.entries(t)
        .filter(([k]) => known.has(k))
        .map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]),
    );
    db.prepare(
      `INSERT INTO tokens (${Object.keys(tokenRow).join(', ')}) VALUES (${Object.keys(tokenRow)
        .map((k) => '@' + k)
        .join(', ')})`,
    ).run(tokenRow);
    // As version 12's writer left them: two rows caught up (keyed, under the watermark), one pending.
    const caught = [sampleRequest(t.uuid), sampleRequest(t.uuid)];
    const pending = sampleRequest(t.uuid);
    // Version 12's columns only (later migrations add more).
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (@uuid, @token_id, @type, @body, @size, '{}', '[]', '[]', '[]', @time, @sorting, @created_at, @updated_at, '{}')`);
    for (const r of [...caught, pending])
      insert.run({ uuid: r.uuid, token_id: r.token_id, type: r.type, body: r.body, size: r.size, time: r.time, sorting: r.sorting, created_at: r.created_at, updated_at: r.updated_at });
    db.exec(`INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests WHERE seq <= 2; UPDATE request_watermark SET seq = 2;
      UPDATE tokens SET request_count = 2`);
    db.prepare('INSERT INTO request_files VALUES (?, ?, ?)').run(caught[0]!.uuid, 'f', Buffer.from('file'));
    const before = db.prepare('SELECT seq, uuid FROM requests ORDER BY seq').all();
    expect(before.map((r) => (r as { uuid: string }).uuid)).toEqual([...caught, pending].map((r) => r.uuid));
    db.close();

    // The migration alone indexes what was caught up.
    const migrated = new Database(file);
    migrate(migrated);
    expect(migrated.prepare('SELECT uuid FROM request_ids ORDER BY uuid').pluck().all()).toEqual(caught.map((r) => r.uuid).sort());
    migrated.close();
    const store = createSqliteStore(file);
    // The store's start-up catch-up takes the pending row.
    expect(store.db.prepare('SELECT uuid FROM request_ids ORDER BY uuid').pluck().all()).toEqual([...caught, pending].map((r) => r.uuid).sort());
    const indexes = store.db.prepare("SELECT name FROM pragma_index_list('requests')").pluck().all();
    expect(indexes).toEqual([]);
    expect((await store.requests.getFile(t.uuid, caught[0]!.uuid, 'f'))?.toString()).toBe('file');
    expect((await store.requests.list(t.uuid, page)).items.map((r) => r.uuid)).toEqual([...caught, pending].map((r) => r.uuid));
    expect(await store.requests.delete(t.uuid, caught[0]!.uuid)).toBe(true);
    expect((store.db.prepare('SELECT count(*) AS n FROM request_files').get() as { n: number }).n).toBe(0);
    // The sequence carries over.
    const fresh = sampleRequest(t.uuid);
    await store.requests.insert(fresh, 100);
    expect(store.db.prepare('SELECT seq FROM requests WHERE uuid = ?').pluck().get(fresh.uuid)).toBe(4);
    await store.close();
  });
});

describe('migration 12 (pending rows, no foreign key from requests to tokens)', () => {
  it('keeps every request, its files and the sequence of a database made by the earlier schema', async () => {
    const file = tmp();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    // The schema as migration 11 left it.
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const m of migrations.filter((m) => m.version <= 11)) {
      db.exec(m.up);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(m.version, 0);
    }
    const t = sampleToken();
    db.prepare(
      `INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content, default_status,
       default_content_type, request_limit, created_at, updated_at, request_count) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/html', 100, 0, 0, 3)`,
    ).run(t.uuid);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, ?, 'web', ?, 1, '{}', '[]', '[]', '[]', 0, ?, ?, 0, '{}')`);
    for (let i = 1; i <= 4; i++) insert.run(`r${i}`, t.uuid, Buffer.from([i]), i, i * 1000);
    db.prepare("INSERT INTO request_files VALUES ('r2', 'f', ?)").run(Buffer.from('file'));
    // The newest was deleted: its seq must not be handed out again.
    db.prepare("DELETE FROM requests WHERE uuid = 'r4'").run();
    db.close();

    const store = createSqliteStore(file);
    const { items } = await store.requests.list(t.uuid, page);
    expect(items.map((r) => [r.uuid, r.body[0]])).toEqual([
      ['r1', 1],
      ['r2', 2],
      ['r3', 3],
    ]);
    expect((await store.requests.getFile(t.uuid, 'r2', 'f'))?.toString()).toBe('file');
    const fresh = sampleRequest(t.uuid);
    await store.requests.insert(fresh, 100);
    const seq = (uuid: string) => (store.db.prepare('SELECT seq FROM requests WHERE uuid = ?').get(uuid) as { seq: number }).seq;
    expect(seq(fresh.uuid)).toBe(5);
    const fk = store.db.prepare('SELECT "table" FROM pragma_foreign_key_list(\'requests\')').all();
    expect(fk).toEqual([]);
    // Trimming goes by the keys the migration made: limit 3 keeps r3, the fresh one and the newest.
    const newest = sampleRequest(t.uuid);
    await store.requests.insert(newest, 3);
    expect((await store.requests.list(t.uuid, page)).items.map((r) => r.uuid)).toEqual(['r3', fresh.uuid, newest.uuid]);
    expect((store.db.prepare('SELECT count(*) AS n FROM request_keys').get() as { n: number }).n).toBe(3);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    await store.close();
  });
});

describe('migration 28 (the HTTP version of web captures)', () => {
  it('reads the web requests of an older database as HTTP/1.1 and finds them by it; e-mail has no version', async () => {
    const file = tmp();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    for (const m of migrations.filter((m) => m.version < 28)) {
      db.exec(m.up);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(m.version, 0);
    }
    const t = sampleToken();
    const known = new Set((db.prepare('PRAGMA table_info(tokens)').all() as Array<{ name: string }>).map((c) => c.name));
    const tokenRow = Object.fromEntries(
      Object.entries(t)
        .filter(([k]) => known.has(k))
        .map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : typeof v === 'boolean' ? Number(v) : v]),
    );
    db.prepare(
      `INSERT INTO tokens (${Object.keys(tokenRow).join(', ')}) VALUES (${Object.keys(tokenRow)
        .map((k) => '@' + k)
        .join(', ')})`,
    ).run(tokenRow);
    // Rows as version 27 stored them, left for the start-up catch-up.
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, ?, ?, X'', 0, '{}', '[]', '[]', '[]', 0, ?, 0, 0, '{}')`);
    insert.run('web-1', t.uuid, 'web', 1);
    insert.run('mail-1', t.uuid, 'email', 2);
    db.close();

    const store = createSqliteStore(file);
    const { items } = await store.requests.list(t.uuid, page);
    expect(items.map((r) => [r.uuid, r.httpVersion])).toEqual([
      ['web-1', '1.1'],
      ['mail-1', undefined],
    ]);
    const found = async (q: string) => (await store.requests.list(t.uuid, { ...page, query: parseQuery(q) })).items.map((r) => r.uuid);
    expect(await found('http_version:1.1')).toEqual(['web-1']);
    expect(await found('NOT _exists_:http_version')).toEqual(['mail-1']);
    // New captures keep theirs beside the old rows.
    const h2 = sampleRequest(t.uuid, { httpVersion: '2' });
    await store.requests.insert(h2, 100);
    expect(await found('http_version:2')).toEqual([h2.uuid]);
    await store.close();
  });
});
