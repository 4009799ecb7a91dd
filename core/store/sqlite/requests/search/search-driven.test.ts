// Searches driven by the trigram index (request-reads.ts: DRIVEN, or denseFrom for counts that
// search_rows and search_fields answer) check the candidates without the token index: they must
// still keep to the token, the date window, the live rows (entries of deleted requests stay in the
// index until purged) and the order of the list.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../query/index.js';
import { compileSql } from './compile-sql.js';
import { createBatchWriter } from '../writer/batch-writer.js';
import { migrate } from '../../migrations.js';
import { sqliteRequests } from '../engine.js';

function seeded(): Database.Database {
  const db = new Database(':memory:');
  migrate(db);
  const token = db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
    default_status, default_content_type, request_limit, created_at, updated_at) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 100000, 0, 0)`);
  token.run('t1');
  token.run('t2');
  const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time,
    note, sorting, created_at, updated_at, extra) VALUES (?, ?, 'web', '10.0.0.1', ?, ?, ?, ?, ?, '[]', '[]', '[]', 0, NULL, ?, ?, ?, '{}')`);
  db.transaction(() => {
    for (let i = 0; i < 3000; i++) {
      // Both tokens hold the same words, so every index entry has a twin of the other token.
      const tk = i % 2 ? 't1' : 't2';
      const body = Buffer.from(i % 5 ? `order ${i} paid` : `order ${i} payment failed`);
      const query = i % 3 ? '{"action":"update"}' : '{"action":"create","source":"mail"}';
      insert.run(`u${i}`, tk, i % 4 ? 'POST' : 'PUT', body, body.length, query, `{"user-agent":["curl/${i % 9}"]}`, 3000 - i, 1000 + i, 1000 + i);
    }
  })();
  createBatchWriter(db).catchUp();
  // Deleted behind the index's back: their entries stay until the purge reaches them.
  db.exec('DELETE FROM requests WHERE seq % 7 = 0');
  return db;
}

describe('searches driven by the trigram index', () => {
  it('keep to the token, the dates and the live rows, in list order, counted exactly', async () => {
    const db = seeded();
    const repo = sqliteRequests(db);
    const cases: Array<{ q: string; dateFrom?: number; dateTo?: number }> = [
      { q: '"payment failed"' },
      { q: 'order' },
      { q: '_exists_:query.source' },
      { q: 'headers.user-agent:curl/3' },
      { q: 'method:POST AND (failed OR paid) AND NOT query.action:create' },
      { q: 'query.action:update' },
      { q: 'method:put AND content:paid' },
      { q: '"payment failed"', dateFrom: 1500, dateTo: 2500 },
      // Long runs, cut to a sampled piece of 4 characters (narrowMatch): the rows still decide.
      { q: '"5 payment failed"' },
      { q: 'content:*ER 2?5 PAYMENT FAI*' },
      { q: '"order 1235 payment failed and then some more words than twelve pieces"' },
    ];
    for (const { q, dateFrom, dateTo } of cases) {
      const c = compileSql(parseQuery(q)!, 0);
      const dates = `${dateFrom != null ? ` AND created_at >= ${dateFrom}` : ''}${dateTo != null ? ` AND created_at <= ${dateTo}` : ''}`;
      const want = db
        .prepare(`SELECT uuid FROM requests WHERE token_id = 't1'${dates} AND (${c.sql}) ORDER BY sorting DESC, seq DESC`)
        .pluck()
        .all(...c.params);
      for (const [page, perPage] of [
        [1, 5000],
        [3, 7],
      ] as const) {
        const got = await repo.list('t1', { query: parseQuery(q), dateFrom, dateTo, sorting: 'newest', page, perPage, now: 0 });
        expect(
          got.items.map((r) => r.uuid),
          `${q} page ${page}`,
        ).toEqual(want.slice((page - 1) * perPage, page * perPage));
        expect([got.total, got.totalCapped], q).toEqual([want.length, undefined]);
      }
    }
    db.close();
  });

  // The trigram index matches more than the search language does: it folds case beyond ASCII (the
  // Kelvin sign K folds to k, É to é) and skips a NUL byte, where LIKE's text ends. So a candidate
  // whose body is not plain (search_rows.plain: ASCII without NUL) is checked on its row, counts
  // included: these would be miscounted by the index alone. A lone byte past ASCII reads as U+FFFD
  // in both: that body is plain.
  it('count and list only what the rows match where the index folds or reads more', async () => {
    const db = new Database(':memory:');
    migrate(db);
    db.prepare(
      `INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at) VALUES ('t1', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 100000, 0, 0)`,
    ).run();
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time,
      note, sorting, created_at, updated_at, extra) VALUES (?, 't1', 'web', '10.0.0.1', 'POST', ?, ?, '{}', '{}', '[]', '[]', '[]', 0, NULL, ?, ?, ?, '{}')`);
    const bodies = ['plain key', '\u212Aey sign', 'payment FAILED', 'payment\u0000failed', 'ÉCOLE', 'école', 'invoice', 'inv\u0000oice', 'x'].map((b) => Buffer.from(b));
    bodies.push(Buffer.from([0xe9, 0x6b, 0x65, 0x79]));
    bodies.forEach((b, i) => insert.run(`u${i}`, b, b.length, i, 1000 + i, 1000 + i));
    createBatchWriter(db).catchUp();
    const repo = sqliteRequests(db);
    const cases: Array<[string, string[]]> = [
      ['key', ['u0', 'u9']],
      ['"payment failed"', ['u2']],
      ['content:payment*', ['u2', 'u3']],
      ['école', ['u5']],
      ['ÉCOLE', ['u4']],
      ['invoice', ['u6']],
      ['invoice OR key', ['u0', 'u6', 'u9']],
      ['(invoice OR key) AND NOT "plain key"', ['u6', 'u9']],
    ];
    for (const [q, want] of cases) {
      const c = compileSql(parseQuery(q)!, 0);
      // The same predicate over the rows alone (no index) agrees.
      expect(
        db
          .prepare(`SELECT uuid FROM requests WHERE token_id = 't1' AND (${c.sql}) ORDER BY sorting`)
          .pluck()
          .all(...c.params),
        q,
      ).toEqual(want);
      const got = await repo.list('t1', { query: parseQuery(q), sorting: 'oldest', page: 1, perPage: 50, now: 0 });
      expect([got.items.map((r) => r.uuid), got.total, got.totalCapped], q).toEqual([want, want.length, undefined]);
    }
    // The index alone would have found more (why the rows decide).
    const indexOnly = (m: string) => db.prepare('SELECT count(*) FROM request_text WHERE request_text MATCH ?').pluck().get(m);
    expect(indexOnly('txt : "key"')).toBe(3);
    expect(indexOnly('txt : "école"')).toBe(2);
    expect(indexOnly('txt : "invoice"')).toBe(2);
    expect(db.prepare('SELECT plain FROM search_rows ORDER BY seq').pluck().all()).toEqual([1, 0, 1, 0, 0, 0, 1, 0, 1, 1]);
    db.close();
  });

  // Why search_rows: a plain body's exact term is counted from the indexes alone. Bodies never
  // change in the service; one changed behind the index here shows that no row was read to count.
  it("counts a plain body's exact term without reading its row", async () => {
    const db = seeded();
    const repo = sqliteRequests(db);
    const list = (q: string) => repo.list('t1', { query: parseQuery(q), sorting: 'oldest', page: 1, perPage: 5000, now: 0 });
    const before = await list('"payment failed"');
    const seq = db.prepare("SELECT seq FROM requests WHERE token_id = 't1' AND CAST(body AS TEXT) LIKE '%payment failed%' LIMIT 1").pluck().get();
    db.prepare('UPDATE requests SET body = ? WHERE seq = ?').run(Buffer.from('changed'), seq);
    const after = await list('"payment failed"');
    expect(after.total).toBe(before.total);
    // The page reads the rows.
    expect(after.items.length).toBe(before.items.length - 1);
    // Not so for a body that is not plain, nor for a term the index cannot decide (a wildcard inside).
    db.prepare('UPDATE search_rows SET plain = 0 WHERE seq = ?').run(seq);
    expect((await list('"payment failed"')).total).toBe(before.total - 1);
    db.prepare('UPDATE search_rows SET plain = 1 WHERE seq = ?').run(seq);
    expect((await list('content:payment*failed')).total).toBe(before.total - 1);
    db.close();
  });
});
