// Migration 21 on a database that already holds requests: the token index gets its new columns and
// the body's trigram index its rows, so the indexed searches find what was stored before.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../query/index.js';
import { compileSql } from './compile-sql.js';
import { COUNT_BOUND } from '../../../query/limits.js';
import { createBatchWriter } from '../writer/batch-writer.js';
import { TEXT_PURGE_ROWS } from './text-purge.js';
import { deleteTokenRequests } from '../readers/chunks.js';
import { migrate, migrations } from '../../migrations.js';
import { migrateUpTo } from '../../test/migrate-up-to.js';
import { sqliteRequests } from '../engine.js';
import { headerText } from './fts-writes.js';

describe('migration 21 (search indexes)', () => {
  it('indexes the requests stored before it, and searches find them', async () => {
    const db = new Database(':memory:');
    // Up to migration 20, as a database from before.
    migrateUpTo(db, 20);
    db.prepare(
      `INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content, default_status,
      default_content_type, request_limit, created_at, updated_at) VALUES ('t1', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 100000, 0, 0)`,
    ).run();
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, 't1', 'web', ?, ?, ?, 1, '{}', '[]', '[]', '[]', 0, ?, ?, ?, '{}')`);
    const n = COUNT_BOUND + 5;
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(`u${i}`, `10.0.0.${i % 7}`, i % 2 ? 'PUT' : 'GET', Buffer.from(i === 77 ? 'order Ünïcode-77 done' : `body ${i} plain`), i, 1000 + i, 1000 + i);
    })();
    db.exec(`INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests;
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests); UPDATE tokens SET request_count = ${n}`);

    migrate(db);
    const repo = sqliteRequests(db);
    const list = (q: string, page = 1) => repo.list('t1', { query: parseQuery(q), sorting: 'oldest', page, perPage: 10, now: 0 });

    expect((await list('ünïcode-77')).items.map((r) => r.uuid)).toEqual([]); // LIKE folds ASCII only, the index more: LIKE decides
    expect((await list('Ünïcode-77')).items.map((r) => r.uuid)).toEqual(['u77']);
    expect((await list('ORDER')).total).toBe(1);
    expect((await list('content:plai*')).totalCapped).toBe(true);
    expect((await list('method:put AND ip:10.0.0.3')).items[0]!.uuid).toBe('u3');
    const capped = await list('ip:10.0.0.*');
    expect([capped.total, capped.totalCapped]).toEqual([COUNT_BOUND, true]);
    expect((await list('sorting:[10 TO 12]')).items.map((r) => r.uuid)).toEqual(['u10', 'u11', 'u12']);
    const dated = await repo.list('t1', { dateFrom: 1010, dateTo: 1012, sorting: 'oldest', page: 1, perPage: 10 });
    expect(dated.items.map((r) => r.uuid)).toEqual(['u10', 'u11', 'u12']);
    expect((await list('NOT content:plain')).items.map((r) => r.uuid)).toEqual(['u77']);
    const all2 = await repo.list('t1', { sorting: 'newest', page: 2, perPage: 3 });
    expect([all2.total, all2.totalCapped, all2.items.map((r) => r.uuid)]).toEqual([n, undefined, [`u${n - 4}`, `u${n - 5}`, `u${n - 6}`]]);

    // A delete in chunks takes exactly the matches and keeps the count.
    expect(await repo.deleteMany('t1', { query: parseQuery('method:PUT'), now: 0 })).toBe(Math.floor(n / 2));
    expect((await repo.list('t1', { sorting: 'oldest', page: 1, perPage: 1 })).total).toBe(n - Math.floor(n / 2));
    expect((await list('method:PUT')).total).toBe(0);
    db.close();
  });
});

/** A database migrated up to `version` only, as one from before the later migrations. */
function migratedTo(version: number): Database.Database {
  const db = new Database(':memory:');
  migrateUpTo(db, version);
  db.prepare(
    `INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content, default_status,
    default_content_type, request_limit, created_at, updated_at) VALUES ('t1', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 100000, 0, 0)`,
  ).run();
  return db;
}

/** Stores request i of a varied set (headers, query strings, notes, sizes), past the watermark. */
/**
 * Token t1's list for each query is what the same filter finds reading every row (the plain
 * compiler's SQL); with `found`, each finds some.
 */
async function expectListedAsUnindexed(db: Database.Database, queries: readonly string[], n: number, { found = false } = {}): Promise<void> {
  const repo = sqliteRequests(db);
  for (const q of queries) {
    const c = compileSql(parseQuery(q)!, 0);
    const want = db
      .prepare(`SELECT uuid FROM requests WHERE (${c.sql}) ORDER BY sorting, seq`)
      .pluck()
      .all(...c.params);
    if (found) expect(want.length, q).toBeGreaterThan(0);
    expect(
      (await repo.list('t1', { query: parseQuery(q), sorting: 'oldest', page: 1, perPage: n, now: 0 })).items.map((r) => r.uuid),
      q,
    ).toEqual(want);
  }
}

function storeRequests(db: Database.Database, from: number, to: number): void {
  const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time, note,
    sorting, created_at, updated_at, extra) VALUES (?, 't1', 'web', '10.0.0.1', ?, ?, ?, ?, ?, '[]', '[]', '[]', 0, ?, ?, ?, ?, '{}')`);
  const queries = ['{"action":"update"}', '{"action":"create","source":"mail"}', '{"n":1.5,"flag":true,"q":"say \\"upd\\""}', null, '{"action":"Updated"}'];
  db.transaction(() => {
    for (let i = from; i < to; i++) {
      const headers = i % 3 ? `{"user-agent":["curl/${i}"]}` : `{"user-agent":["Python"],"x-trace":["t${i}"]}`;
      const body = Buffer.from(i % 7 ? `body ${i} paid` : `body ${i} failed ${'x'.repeat(100)}`);
      insert.run(`u${i}`, i % 2 ? 'PUT' : 'GET', body, body.length, queries[i % queries.length], headers, i % 11 ? null : i % 22 ? 'flagged' : '', i, 1000 + i, 1000 + i);
    }
  })();
}

describe('migration 22 (size, note, header and query-string indexes; purge)', () => {
  const QUERIES = [
    'headers.user-agent:curl',
    'headers.user-agent:CURL',
    'headers.user-agent:curl/1*',
    'headers.user-agent:"curl/12"',
    '_exists_:headers.x-trace',
    'NOT _exists_:headers.x-trace',
    'query.action:update',
    'query.action:upd*',
    '_exists_:query.source',
    'query.n:1.5',
    'query.flag:true',
    'query.q:"say \\"upd\\""',
    'query.q:upd',
    'size:[100 TO *]',
    'size:[* TO 20]',
    '_exists_:note',
    'NOT _exists_:note',
    'note:flag*',
    'method:PUT AND (failed OR query.action:create)',
    '(headers.user-agent:python OR _exists_:query.source) AND NOT content:paid',
    '(method:PUT OR method:GET) AND NOT content:failed',
    'method:put OR method:DELETE OR method:get',
    '(method:PUT OR method:P*) AND size:[* TO 30]',
    'created_at:[1970-01-01 TO 1970-01-02] AND method:GET',
  ];

  it('indexes the requests stored before it, and every search keeps the unindexed results', async () => {
    const db = migratedTo(21);
    const n = 1200;
    storeRequests(db, 0, n);
    db.exec(`INSERT INTO request_keys (tk, st, sq, km, kty, kip, kca) SELECT token_id, sorting, seq, method, type, ip, created_at FROM requests;
      INSERT INTO request_text (rowid, txt) SELECT seq, CAST(body AS TEXT) FROM requests;
      INSERT INTO request_ids (u, sq) SELECT uuid, seq FROM requests;
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests); UPDATE tokens SET request_count = ${n}`);
    migrate(db);
    const repo = sqliteRequests(db);
    const expected = (q: string) => {
      const c = compileSql(parseQuery(q)!, 0);
      return db
        .prepare(`SELECT uuid FROM requests WHERE token_id = 't1' AND (${c.sql}) ORDER BY sorting, seq`)
        .pluck()
        .all(...c.params) as string[];
    };
    const found = async (q: string) => (await repo.list('t1', { query: parseQuery(q), sorting: 'oldest', page: 1, perPage: n, now: 0 })).items.map((r) => r.uuid);
    for (const q of QUERIES) {
      const want = expected(q);
      expect(want.length, q).toBeGreaterThan(0);
      expect(await found(q), q).toEqual(want);
    }

    // The has-note key follows note edits.
    expect(await found('_exists_:note')).not.toContain('u5');
    expect(await repo.update('t1', 'u5', { note: 'now noted' })).not.toBeNull();
    expect(await repo.update('t1', 'u11', { note: null })).not.toBeNull();
    expect(await found('_exists_:note')).toContain('u5');
    expect(await found('_exists_:note')).not.toContain('u11');
    expect(await found('_exists_:note')).toEqual(expected('_exists_:note'));
    db.close();
  });

  it('the catch-up indexes new requests the same way, and purges index entries of deleted requests a bounded number at a time', async () => {
    // Today's schema: the catch-up writes the search index of t1 (allowed 100,000: search_tokens).
    const db = migratedTo(migrations.length + 100);
    // A new writer each time: one reads back what was stored behind its back (here, by the test) once.
    // No time budget for the purge here (TEXT_PURGE_MS): every stale entry scanned goes.
    const catchUp = () => createBatchWriter(db, { purgeMs: Infinity }).catchUp();
    const n = 2 * TEXT_PURGE_ROWS + 300;
    storeRequests(db, 0, n);
    catchUp();
    await expectListedAsUnindexed(db, QUERIES, n);
    const repo = sqliteRequests(db);

    const entries = () => db.prepare('SELECT count(*) FROM request_text').pluck().get() as number;
    expect(entries()).toBe(n);
    // Deleted behind the index's back (as trimming and deletes do): their entries stay for now,
    // listed for the purge (migration 24), and only theirs.
    db.exec('DELETE FROM requests WHERE seq % 2 = 0');
    const kept = n - Math.floor(n / 2);
    expect(entries()).toBe(n);
    const listed = () => db.prepare('SELECT seq FROM request_text_stale ORDER BY seq').pluck().all() as number[];
    expect(listed()).toEqual(Array.from({ length: Math.floor(n / 2) }, (_, i) => 2 * (i + 1)));
    // Each catch-up (it runs when there is something to index) deletes TEXT_PURGE_ROWS listed entries at most.
    storeRequests(db, n, n + 1);
    catchUp();
    expect(entries()).toBe(n + 1 - TEXT_PURGE_ROWS);
    expect(listed().length).toBe(Math.floor(n / 2) - TEXT_PURGE_ROWS);
    for (let i = 1; i <= 3; i++) {
      storeRequests(db, n + i, n + i + 1);
      catchUp();
    }
    expect(entries()).toBe(kept + 4);
    const stale = db.prepare('SELECT count(*) FROM request_text t WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = t.rowid)').pluck().get();
    expect(stale).toBe(0);
    expect(listed()).toEqual([]);
    expect(await repo.list('t1', { query: parseQuery('paid'), sorting: 'oldest', page: 1, perPage: 5, now: 0 }).then((p) => p.items.map((r) => r.uuid))).toEqual(['u2', 'u4', 'u6', 'u8', 'u10']);
    db.close();
  });

  it('purges within a time budget per catch-up, resuming where it stopped, and goes on while nothing is captured', async () => {
    const db = migratedTo(migrations.length + 100);
    const n = 600;
    storeRequests(db, 0, n);
    createBatchWriter(db).catchUp();
    const stale = () => db.prepare('SELECT count(*) FROM request_text t WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = t.rowid)').pluck().get() as number;
    db.exec('DELETE FROM requests WHERE seq % 3 <> 0');
    expect(stale()).toBe(400);
    storeRequests(db, n, n + 1);
    // A budget of 0 ms: one entry per catch-up (at least one, so that the purge gets on).
    const writer = createBatchWriter(db, { purgeMs: 0 });
    expect(writer.catchUp()).toBe(1);
    expect(writer.purging).toBe(true);
    expect(stale()).toBe(399);
    // Nothing more to catch up: each catch-up still purges (the schedule runs them while purging).
    let catchUps = 0;
    while (writer.purging && catchUps < 1000) (expect(writer.catchUp()).toBe(0), catchUps++);
    expect(catchUps).toBe(399);
    expect(stale()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM request_text').pluck().get()).toBe(200 + 1);
    db.close();
  });

  it('migration 24 lists the entries an earlier version left, and a deleted token takes its entries in its chunks', async () => {
    const db = migratedTo(23);
    storeRequests(db, 0, 50);
    // Indexed as version 23's catch-up did (t1 is search-indexed: request_limit 100,000).
    db.exec(`INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests;
      INSERT INTO search_keys (tk, st, sq, km, kty, kip, kca, ksz) SELECT token_id, sorting, seq, method, type, ip, created_at, size FROM requests;
      INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests;
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests); UPDATE tokens SET request_count = 50`);
    // An earlier version's trimming: the requests went, their entries stayed (nothing listed them).
    db.exec('DELETE FROM requests WHERE seq <= 20');
    migrate(db);
    const stale = () => db.prepare('SELECT count(*) FROM request_text t WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = t.rowid)').pluck().get() as number;
    expect(stale()).toBe(20);
    expect(db.prepare('SELECT seq FROM request_text_stale ORDER BY seq').pluck().all()).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Nothing listed: a catch-up deletes no entry (and looks at no other).
    db.exec('DELETE FROM request_text_stale WHERE seq > 10');
    createBatchWriter(db).catchUp();
    expect(stale()).toBe(10);
    expect(db.prepare('SELECT count(*) FROM request_text_stale').pluck().get()).toBe(0);
    // The token's deletion, in chunks: as many listed entries as requests deleted go with them
    // (lowest first: the 10 listed before stay for the catch-up), none is left unlisted.
    db.exec('INSERT INTO request_text_stale (seq) SELECT t.rowid FROM request_text t WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = t.rowid)');
    const deleted = await deleteTokenRequests(db, 't1', async () => true);
    expect(deleted).toBe(30);
    const counts = () => [db.prepare('SELECT count(*) FROM request_text').pluck().get(), db.prepare('SELECT count(*) FROM request_text_stale').pluck().get()];
    expect(counts()).toEqual([10, 10]);
    createBatchWriter(db).catchUp();
    expect(counts()).toEqual([0, 0]);
    db.close();
  });

  it("migration 25: deleting or trimming a token outside the search index leaves the index alone, a listed token's entries are listed for the purge", async () => {
    const db = migratedTo(24);
    db.prepare(
      `INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content, default_status,
      default_content_type, request_limit, created_at, updated_at) VALUES ('t2', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 30, 0, 0)`,
    ).run();
    migrate(db);
    expect(db.prepare('SELECT token_id FROM search_tokens').pluck().all()).toEqual(['t1']);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, ?, 'web', ?, 4, '{}', '[]', '[]', '[]', 0, ?, 0, 0, '{}')`);
    const add = (from: number, to: number) => {
      for (let i = from; i < to; i++) for (const t of ['t1', 't2']) insert.run(`${t}-${i}`, t, Buffer.from(`b ${i}`), i);
    };
    const writer = createBatchWriter(db, { trimmedBacklog: 0 });
    add(0, 40);
    writer.catchUp();
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    // t2 (request_limit 30) was trimmed to its newest 30; t1 keeps all 40, in both of its indexes.
    expect(db.prepare('SELECT token_id, count(*) FROM requests GROUP BY token_id ORDER BY token_id').raw().all()).toEqual([
      ['t1', 40],
      ['t2', 30],
    ]);
    expect(count("SELECT min(sorting) FROM requests WHERE token_id = 't2'")).toBe(10);
    expect([count('SELECT count(*) FROM search_keys'), count('SELECT count(*) FROM request_text')]).toEqual([40, 40]);
    expect(count('SELECT count(*) FROM request_text_stale')).toBe(0);
    // Deleting some of each: t1's search entries go and their text is listed for the purge; t2's
    // keys and ids go with its requests, as before.
    db.exec('DELETE FROM requests WHERE sorting % 4 = 0');
    const t1Deleted = db.prepare('SELECT seq FROM request_text_stale ORDER BY seq').pluck().all() as number[];
    expect(t1Deleted.length).toBe(10);
    expect(count(`SELECT count(*) FROM requests WHERE seq IN (${t1Deleted.join(',')})`)).toBe(0);
    expect(count('SELECT count(*) FROM search_keys')).toBe(30);
    expect(count('SELECT count(*) FROM search_keys k WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = k.seq)')).toBe(0);
    for (const table of ['request_keys', 'request_ids']) {
      expect(count(`SELECT count(*) FROM ${table} k WHERE NOT EXISTS (SELECT 1 FROM requests WHERE seq = k.seq)`), table).toBe(0);
    }
    expect(count('SELECT count(*) FROM request_keys')).toBe(count('SELECT count(*) FROM requests'));
    db.close();
  });

  it('a filtered deletion keeps each chunk to its time: slow rows end a chunk after one part, not after the rows planned', async () => {
    const db = migratedTo(migrations.length + 100);
    storeRequests(db, 0, 100);
    createBatchWriter(db).catchUp();
    // Each deleted request costs 1 ms here; each chunk takes its count off the token once.
    const chunks: number[] = [];
    db.function('slow_row', () => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      return null;
    });
    db.function('chunk_done', (n: unknown) => (chunks.push(Number(n)), null));
    db.exec(`CREATE TEMP TRIGGER slow_row AFTER DELETE ON requests BEGIN SELECT slow_row(); END;
      CREATE TEMP TRIGGER chunk_done AFTER UPDATE OF request_count ON tokens WHEN NEW.request_count < OLD.request_count BEGIN SELECT chunk_done(OLD.request_count - NEW.request_count); END;`);
    // The first chunk is planned at 100 rows: it stops after one statement of 16 (16 ms), and the
    // next ones are planned from that (at their minimum, 10).
    expect(await sqliteRequests(db).deleteMany('t1', { query: parseQuery('method:PUT'), now: 0 })).toBe(50);
    expect(chunks).toEqual([16, 10, 10, 10, 4]);
    expect(db.prepare("SELECT count(*) FROM requests WHERE method = 'PUT'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM request_text_stale').pluck().get()).toBe(0);
    db.close();
  });
});

describe('the headers full text (headerText)', () => {
  /** Header values with JSON's own punctuation, escapes and repeated headers, in turn. */
  const VALUES = ['plain-value/1.0', 'a":["b', 'ends":[', 'x"],"y', 'ends"],', 'q","r', 'back\\slash\\', 'brace}]', '{"json":["in",1]}', 'ünï-côde'];
  const headersOf = (i: number): Record<string, string[]> => ({
    'user-agent': [VALUES[i % VALUES.length]!],
    ...(i % 4 === 0 ? { 'x-multi': ['first-one', VALUES[(i + 3) % VALUES.length]!] } : {}),
    ...(i % 5 === 0 ? { 'x-empty': [] } : {}),
    ...(i % 3 === 0 ? { 'x-last': ['tail-value'] } : {}),
  });
  const QUERIES = [
    ...VALUES.map((v) => `headers.user-agent:"${v.replace(/[\\"]/g, '\\$&')}"`),
    'headers.user-agent:plain*',
    'headers.user-agent:*slash*',
    'headers.user-agent:*json*',
    'headers.user-agent:*côde',
    'headers.x-multi:first*',
    'headers.x-multi:"x\\"],\\"y"',
    'headers.x-last:tail-value',
    '_exists_:headers.x-multi',
    '_exists_:headers.x-last',
    '_exists_:headers.x-empty',
    'NOT _exists_:headers.x-last',
  ];

  it('holds names and values without the JSON around them, and header searches find what they found in the JSON', async () => {
    const db = migratedTo(migrations.length + 100);
    const n = 400;
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, 't1', 'web', '10.0.0.1', 'POST', ?, 4, ?, '[]', '[]', '[]', 0, ?, ?, ?, '{}')`);
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(`u${i}`, Buffer.from(`body ${i}`), JSON.stringify(headersOf(i)), i, 1000 + i, 1000 + i);
    })();
    createBatchWriter(db).catchUp();
    // Half the entries as an earlier version indexed them: the headers' JSON text itself.
    db.transaction(() => {
      for (let seq = 1; seq <= n; seq += 2) {
        db.prepare('DELETE FROM request_text WHERE rowid = ?').run(seq);
        db.prepare('INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests WHERE seq = ?').run(seq);
      }
    })();
    const phrase = (text: string) =>
      db
        .prepare(`SELECT count(*) FROM request_text WHERE request_text MATCH ?`)
        .pluck()
        .get(`hdr : ("${text.replace(/"/g, '""')}")`);
    // Only the JSON-indexed half holds the syntax between a name and its value.
    expect(phrase('t":["')).toBe(n / 2);
    expect(phrase('"user-agent"')).toBe(n);

    await expectListedAsUnindexed(db, QUERIES, n, { found: true });
    db.close();
  });

  it('keeps every quoted name a search looks for and every run of a value it matches by', () => {
    const db = new Database(':memory:');
    const text = db.prepare<[string], string>(`SELECT ${headerText('?')}`).pluck();
    expect(text.get('{"host":["127.0.0.1:3000"],"content-type":["application/json"]}')).toBe('"host"127.0.0.1:3000"content-type"application/json"');
    // Random headers over an alphabet of JSON's punctuation: what indexedRuns (compile-sql.ts) looks
    // for is a quoted name of SEGMENT characters or a value's run of 3 or more characters with no
    // quote, backslash or control character.
    const alphabet = ['a', 'b', 'X', '-', '1', '"', '\\', ':', '[', ']', ',', '{', '}', '\n', 'é'];
    let seed = 7;
    const rnd = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % k);
    const str = () => Array.from({ length: rnd(8) }, () => alphabet[rnd(alphabet.length)]).join('');
    for (let i = 0; i < 20_000; i++) {
      const headers: Record<string, string[]> = {};
      for (let k = rnd(4); k > 0; k--) headers[str()] = Array.from({ length: rnd(3) }, str);
      const t = text.get(JSON.stringify(headers))!;
      for (const [name, values] of Object.entries(headers)) {
        if (/^[A-Za-z0-9_-]+$/.test(name)) expect(t, JSON.stringify(headers)).toContain(`"${name}"`);
        for (const run of values.flatMap((v) => v.split(/["\\\u0000-\u001f]/))) if ([...run].length >= 3) expect(t, JSON.stringify(headers)).toContain(run);
      }
    }
    db.close();
  });
});
