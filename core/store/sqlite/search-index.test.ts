// Migration 21 on a database that already holds requests: the token index gets its new columns and
// the body's trigram index its rows, so the indexed searches find what was stored before.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../query/index.js';
import { COUNT_BOUND } from '../query/limits.js';
import { migrate, migrations } from './migrations.js';
import { sqliteRequests } from './requests.js';

describe('migration 21 (search indexes)', () => {
  it('indexes the requests stored before it, and searches find them', async () => {
    const db = new Database(':memory:');
    // Up to migration 20, as a database from before.
    const all = migrations.splice(0);
    migrations.push(...all.filter((m) => m.version <= 20));
    try {
      migrate(db);
    } finally {
      migrations.splice(0, migrations.length, ...all);
    }
    db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content, default_status,
      default_content_type, request_limit, created_at, updated_at) VALUES ('t1', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 100000, 0, 0)`).run();
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
