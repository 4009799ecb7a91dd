// Two processes started together on one new (or older) database file both run migrate(): the one
// that looks second must not apply a migration the other applied meanwhile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from './migrations.js';
import { migrateUpTo } from './test/migrate-up-to.js';
import { createSqliteStore } from './index.js';
import { parseQuery } from '../query/index.js';
import { sampleToken } from '../store.contract.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function open(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

describe('migrate', () => {
  it('skips the migrations another connection applied after this one looked', () => {
    const file = path.join(dir, 'race.sqlite');
    const first = open(file);
    const second = open(file);
    // `first` reads which versions are applied (none), then `second` applies them all before
    // `first` goes on: the interleaving two processes starting at once can produce.
    const prepare = first.prepare.bind(first);
    let raced = false;
    first.prepare = ((sql: string) => {
      const stmt = prepare(sql);
      if (raced || !/SELECT version FROM schema_migrations/.test(sql)) return stmt;
      const all = stmt.all.bind(stmt);
      stmt.all = ((...args: unknown[]) => {
        const rows = all(...args);
        raced = true;
        migrate(second);
        return rows;
      }) as typeof stmt.all;
      return stmt;
    }) as typeof first.prepare;

    expect(() => migrate(first)).not.toThrow();
    expect(raced).toBe(true);
    const versions = first.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{ version: number }>;
    expect(new Set(versions.map((v) => v.version)).size).toBe(versions.length);
    first.close();
    second.close();
  });
});

describe("migration 31 (the index tables' columns named as the requests columns)", () => {
  it('upgrades a database of version 30 with requests: reads, searches, captures and deletions still answer', async () => {
    const file = path.join(dir, 'v30.sqlite');
    const db = open(file);
    migrateUpTo(db, 30);
    const token = db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', ?, 0, 0)`);
    // 'big' is above SEARCH_INDEX_ABOVE (10,000): listed in search_tokens by migration 23's trigger.
    token.run('small', 100);
    token.run('big', 50_000);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time,
      sorting, created_at, updated_at, extra) VALUES (?, ?, 'web', '10.0.0.1', ?, ?, 6, '{}', '{}', '[]', '[]', '[]', 0, ?, ?, ?, '{}')`);
    for (let i = 0; i < 30; i++) for (const t of ['small', 'big']) insert.run(`${t}-${i}`, t, i % 2 ? 'PUT' : 'GET', Buffer.from(`body ${i}`), i, 1000 + i, 1000 + i);
    // As version 30's catch-up left them: every request keyed and in the UUID index, big's in the
    // search index, and small's two oldest trimmed (keys gone, rows listed for the sweep).
    db.exec(`INSERT INTO request_keys (tk, st, sq) SELECT token_id, sorting, seq FROM requests ORDER BY token_id, sorting, seq;
      INSERT INTO request_ids (u, sq) SELECT uuid, seq FROM requests ORDER BY uuid, seq;
      INSERT INTO search_keys (tk, st, sq, km, kty, kip, kca, ksz, kn)
        SELECT token_id, sorting, seq, method, type, ip, created_at, size, NULL FROM requests WHERE token_id = 'big';
      INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests WHERE token_id = 'big';
      INSERT INTO search_rows (sq, tn, plain) SELECT r.seq, t.tn, 1 FROM requests r JOIN search_tokens t ON t.tk = r.token_id;
      INSERT INTO search_fields (sq, method, query) SELECT seq, method, query FROM requests WHERE token_id = 'big';
      INSERT INTO request_trimmed (sq) SELECT seq FROM requests WHERE uuid IN ('small-0', 'small-1');
      DELETE FROM request_keys WHERE sq IN (SELECT sq FROM request_trimmed);
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests);
      UPDATE tokens SET request_count = CASE uuid WHEN 'small' THEN 28 ELSE 30 END`);
    db.close();

    const store = createSqliteStore(file);
    const columns = (table: string) => (store.db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).join(' ');
    // Named as the requests columns; keyed by the token's number since migration 40.
    expect(columns('search_keys')).toBe('token_number sorting seq method type ip created_at size has_note');
    expect(columns('search_tokens')).toBe('token_id fill_sorting fill_seq token_number');
    const list = (t: string, q?: string) => store.requests.list(t, { query: q ? parseQuery(q) : undefined, sorting: 'oldest', page: 1, perPage: 100, now: 0 });
    expect((await list('small')).total).toBe(28);
    expect((await list('small')).items[0]!.uuid).toBe('small-2');
    expect(await store.requests.get('small', 'small-0')).toBeNull();
    expect((await store.requests.get('small', 'small-5'))?.body.toString()).toBe('body 5');
    // Searched through big's search index (keys, full text, dense rows), and small's rows.
    expect((await list('big', 'method:PUT')).total).toBe(15);
    expect((await list('big', '"body 7" AND method:PUT')).items.map((r) => r.uuid)).toEqual(['big-7']);
    expect((await list('big', 'body AND size:[6 TO 6]')).total).toBe(30);
    expect((await list('small', 'method:GET')).total).toBe(14);
    // New captures are indexed under the new names; a token's deletion takes its index entries.
    const [first] = (await list('big')).items;
    await store.requests.insert({ ...first!, uuid: 'big-new', sorting: 100, method: 'DELETE' }, 50_000);
    expect((await list('big', 'method:DELETE')).items.map((r) => r.uuid)).toEqual(['big-new']);
    const bigNumber = store.db.prepare("SELECT number FROM tokens WHERE uuid = 'big'").pluck().get();
    await store.tokens.delete('big');
    expect(store.db.prepare('SELECT count(*) FROM search_keys WHERE token_number = ?').pluck().get(bigNumber)).toBe(0);
    await store.close();
  });
});

describe('migration 38 (request_keys keyed by the token number)', () => {
  it('upgrades a database of version 37: tokens numbered, keys rebuilt, reads, trims, captures and deletions still answer', async () => {
    const file = path.join(dir, 'v37.sqlite');
    const db = open(file);
    migrateUpTo(db, 37);
    const token = db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', ?, 0, 0)`);
    // Inserted in an order other than their UUIDs': the rebuilt keys must follow the numbers.
    token.run('tok-c', 100);
    token.run('tok-a', 100);
    token.run('tok-b', 40);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time,
      sorting, created_at, updated_at, extra) VALUES (?, ?, 'web', '10.0.0.1', ?, ?, 6, '{}', '{}', '[]', '[]', '[]', 0, ?, ?, ?, '{}')`);
    for (let i = 0; i < 30; i++) for (const t of ['tok-a', 'tok-b', 'tok-c']) insert.run(`${t}-${i}`, t, i % 2 ? 'PUT' : 'GET', Buffer.from(`body ${i}`), i, 1000 + i, 1000 + i);
    // As version 37's catch-up left them: every request keyed by its token's UUID and in the UUID index.
    db.exec(`INSERT INTO request_keys (token_id, sorting, seq) SELECT token_id, sorting, seq FROM requests ORDER BY token_id, sorting, seq;
      INSERT INTO request_ids (uuid, seq) SELECT uuid, seq FROM requests ORDER BY uuid, seq;
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests);
      UPDATE tokens SET request_count = 30`);
    db.close();

    const store = createSqliteStore(file);
    const numbers = store.db.prepare('SELECT uuid, number FROM tokens ORDER BY number').raw().all();
    expect(numbers).toEqual([
      ['tok-c', 1],
      ['tok-a', 2],
      ['tok-b', 3],
    ]);
    expect(store.db.prepare('SELECT token_number, count(*) FROM request_keys GROUP BY token_number').raw().all()).toEqual([
      [1, 30],
      [2, 30],
      [3, 30],
    ]);
    const list = (t: string, q?: string, sorting: 'oldest' | 'newest' = 'oldest') => store.requests.list(t, { query: q ? parseQuery(q) : undefined, sorting, page: 1, perPage: 100, now: 0 });
    expect((await list('tok-a')).total).toBe(30);
    expect((await list('tok-a')).items.map((r) => r.uuid).slice(0, 2)).toEqual(['tok-a-0', 'tok-a-1']);
    expect((await list('tok-c', undefined, 'newest')).items[0]!.uuid).toBe('tok-c-29');
    expect((await list('tok-b', 'method:PUT')).total).toBe(15);
    expect((await store.requests.latest('tok-b'))?.uuid).toBe('tok-b-29');
    // A new token gets the next number, never one given before (not even a deleted token's).
    const created = sampleToken();
    await store.tokens.create(created);
    expect(store.db.prepare('SELECT number FROM tokens WHERE uuid = ?').pluck().get(created.uuid)).toBe(4);
    // New captures are keyed by number, trimmed by it (tok-b's limit is 40), and a deletion takes its key.
    const [first] = (await list('tok-b')).items;
    for (let i = 0; i < 12; i++) await store.requests.insert({ ...first!, uuid: `tok-b-new-${i}`, sorting: 100 + i }, 40);
    expect((await list('tok-b')).total).toBe(40);
    expect((await list('tok-b')).items[0]!.uuid).toBe('tok-b-2');
    expect(await store.requests.delete('tok-b', 'tok-b-new-11')).toBe(true);
    expect((await list('tok-b', undefined, 'newest')).items[0]!.uuid).toBe('tok-b-new-10');
    await store.tokens.delete('tok-c');
    expect(store.db.prepare('SELECT count(*) FROM request_keys WHERE token_number = 1').pluck().get()).toBe(0);
    const again = sampleToken();
    await store.tokens.create(again);
    expect(store.db.prepare('SELECT number FROM tokens WHERE uuid = ?').pluck().get(again.uuid)).toBe(5);
    await store.close();
  });
});

describe("migration 39 (one trigger deletes a request's UUID entry and files, the sweep's rows included)", () => {
  it('upgrades a database of version 38: a swept row and a row deleted another way leave nothing behind', () => {
    const file = path.join(dir, 'v38.sqlite');
    const db = open(file);
    migrateUpTo(db, 38);
    db.prepare(
      `INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at, request_count) VALUES ('t', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 2, 0, 0, 2)`,
    ).run();
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, 't', 'web', x'00', 1, '{}', '[]', '[]', '[]', 0, ?, 0, 0, '{}')`);
    for (let i = 1; i <= 4; i++) insert.run(`r${i}`, i);
    // As version 38's catch-up left them: r1 and r2 trimmed (keys gone, rows listed), every row
    // in the UUID index, r1 and r3 with a file.
    db.exec(`INSERT INTO request_keys (token_number, sorting, seq) SELECT (SELECT number FROM tokens WHERE uuid = token_id), sorting, seq FROM requests WHERE seq > 2;
      INSERT INTO request_ids (uuid, seq) SELECT uuid, seq FROM requests ORDER BY uuid, seq;
      INSERT INTO request_files VALUES ('r1', 'f', x'01'), ('r3', 'f', x'03');
      INSERT INTO request_trimmed (seq) VALUES (1), (2);
      UPDATE request_watermark SET seq = 4`);
    migrateUpTo(db, 39);
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'requests' ORDER BY name").pluck().all();
    expect(names).toEqual(['requests_note_key', 'requests_unid', 'requests_unkey', 'requests_unsearch']);
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    const left = () => [count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_files'), count('SELECT count(*) FROM request_keys'), count('SELECT count(*) FROM request_trimmed')];
    // The sweep's statements (requests/writer/trims.ts) on r1: its UUID entry and file go with it,
    // its list entry by range; the keys of kept rows stay.
    db.transaction(() => {
      db.exec('UPDATE request_sweep SET upto = 1');
      db.exec('DELETE FROM requests WHERE seq IN (SELECT seq FROM request_trimmed WHERE seq <= 1)');
      db.exec('DELETE FROM request_trimmed WHERE seq <= 1');
      db.exec('UPDATE request_sweep SET upto = 0');
    })();
    expect(left()).toEqual([3, 1, 2, 1]);
    // Deleted another way: a listed row takes its list entry, a kept one its key and file.
    db.exec("DELETE FROM requests WHERE uuid IN ('r2', 'r3')");
    expect(left()).toEqual([1, 0, 1, 0]);
    expect(db.prepare('SELECT uuid FROM request_ids').pluck().all()).toEqual(['r4']);
    db.close();
  });
});

describe('migration 40 (search_keys keyed by the token number)', () => {
  it('upgrades a database of version 39: search keys rebuilt by number, searches, notes, trims, captures and deletions still answer', async () => {
    const file = path.join(dir, 'v39.sqlite');
    const db = open(file);
    migrateUpTo(db, 39);
    const token = db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', ?, 0, 0)`);
    // Above SEARCH_INDEX_ABOVE (10,000): listed in search_tokens. Inserted in an order other than
    // their UUIDs': the rebuilt keys must follow the numbers. 'small' is not search-indexed.
    token.run('big-c', 50_000);
    token.run('small', 100);
    token.run('big-a', 50_000);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, ip, method, body, size, query, headers, files, output, errors, time,
      sorting, created_at, updated_at, extra) VALUES (?, ?, 'web', ?, ?, ?, 6, '{}', '{}', '[]', '[]', '[]', 0, ?, ?, ?, '{}')`);
    for (let i = 0; i < 30; i++) for (const t of ['big-a', 'small', 'big-c']) insert.run(`${t}-${i}`, t, `10.0.0.${i % 3}`, i % 2 ? 'PUT' : 'GET', Buffer.from(`body ${i}`), i, 1000 + i, 1000 + i);
    // As version 39's catch-up left them: keys by number, the search index's keys by UUID.
    db.exec(`INSERT INTO request_keys (token_number, sorting, seq) SELECT t.number, r.sorting, r.seq FROM requests r JOIN tokens t ON t.uuid = r.token_id ORDER BY 1, 2, 3;
      INSERT INTO request_ids (uuid, seq) SELECT uuid, seq FROM requests ORDER BY uuid, seq;
      INSERT INTO search_keys (token_id, sorting, seq, method, type, ip, created_at, size, has_note)
        SELECT token_id, sorting, seq, method, type, ip, created_at, size, CASE WHEN sorting = 7 THEN 1 END FROM requests WHERE token_id <> 'small';
      INSERT INTO request_text (rowid, txt, hdr, qs) SELECT seq, CAST(body AS TEXT), headers, query FROM requests WHERE token_id <> 'small';
      INSERT INTO search_rows (seq, token_number, plain) SELECT r.seq, t.token_number, 1 FROM requests r JOIN search_tokens t ON t.token_id = r.token_id;
      INSERT INTO search_fields (seq, method, query) SELECT seq, method, query FROM requests WHERE token_id <> 'small';
      UPDATE requests SET note = 'seen' WHERE sorting = 7 AND token_id <> 'small';
      UPDATE request_watermark SET seq = (SELECT max(seq) FROM requests);
      UPDATE tokens SET request_count = 30`);
    db.close();

    const store = createSqliteStore(file);
    const number = (uuid: string) => store.db.prepare('SELECT number FROM tokens WHERE uuid = ?').pluck().get(uuid) as number;
    expect([number('big-c'), number('small'), number('big-a')]).toEqual([1, 2, 3]);
    expect(store.db.prepare('SELECT token_number, count(*), count(has_note) FROM search_keys GROUP BY token_number').raw().all()).toEqual([
      [1, 30, 1],
      [3, 30, 1],
    ]);
    // The rebuilt table and its indexes are whole and consistent.
    expect(store.db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
    const list = (t: string, q?: string, sorting: 'oldest' | 'newest' = 'oldest') => store.requests.list(t, { query: q ? parseQuery(q) : undefined, sorting, page: 1, perPage: 100, now: 0 });
    // Searches through the keys' indexes (method, ip, size, created_at, note) and the full text.
    expect((await list('big-a', 'method:PUT')).total).toBe(15);
    expect((await list('big-c', 'ip:10.0.0.1')).total).toBe(10);
    expect((await list('big-a', 'size:[6 TO 6]')).total).toBe(30);
    expect((await list('big-a', '_exists_:note')).items.map((r) => r.uuid)).toEqual(['big-a-7']);
    expect((await list('big-c', '"body 7" AND method:PUT')).items.map((r) => r.uuid)).toEqual(['big-c-7']);
    expect((await list('big-c', 'method:GET', 'newest')).items[0]!.uuid).toBe('big-c-28');
    expect((await list('small', 'method:GET')).total).toBe(15);
    // A note edit keeps the key's flag (requests_note_key).
    await store.requests.update('big-a', 'big-a-3', { note: 'later' });
    expect((await list('big-a', '_exists_:note')).items.map((r) => r.uuid)).toEqual(['big-a-3', 'big-a-7']);
    // New captures get keys by number; a deletion takes its key (requests_unsearch).
    const [first] = (await list('big-a')).items;
    await store.requests.insert({ ...first!, uuid: 'big-a-new', sorting: 100, method: 'DELETE' }, 50_000);
    expect((await list('big-a', 'method:DELETE')).items.map((r) => r.uuid)).toEqual(['big-a-new']);
    expect(store.db.prepare('SELECT count(*) FROM search_keys WHERE token_number = ?').pluck().get(number('big-a'))).toBe(31);
    expect(await store.requests.delete('big-a', 'big-a-new')).toBe(true);
    expect((await list('big-a', 'method:DELETE')).total).toBe(0);
    // A lowered limit trims the oldest, their search keys with them.
    await store.tokens.update('big-c', { request_limit: 20 });
    expect((await list('big-c', 'method:PUT')).total).toBe(10);
    expect(store.db.prepare('SELECT count(*) FROM search_keys WHERE token_number = 1').pluck().get()).toBe(20);
    // A token's deletion takes its search keys.
    await store.tokens.delete('big-a');
    expect(store.db.prepare('SELECT count(*) FROM search_keys WHERE token_number = 3').pluck().get()).toBe(0);
    expect(store.db.prepare('SELECT count(*) FROM search_keys').pluck().get()).toBe(20);
    await store.close();
  });
});

describe('migration 41 (one trigger on requests; a sweep of rows alone in their range deletes their UUID entries itself)', () => {
  it('upgrades a database of version 40: swept rows, rows deleted another way and search-indexed ones leave nothing behind', () => {
    const file = path.join(dir, 'v40.sqlite');
    const db = open(file);
    migrateUpTo(db, 40);
    const token = db.prepare(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at, request_count) VALUES (?, 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', ?, 0, 0, ?)`);
    token.run('t', 4, 4);
    // Above SEARCH_INDEX_ABOVE: listed in search_tokens.
    token.run('big', 50_000, 1);
    const insert = db.prepare(`INSERT INTO requests (uuid, token_id, type, body, size, headers, files, output, errors, time, sorting, created_at, updated_at, extra)
      VALUES (?, ?, 'web', x'00', 1, '{}', '[]', '[]', '[]', 0, ?, 0, 0, '{}')`);
    for (let i = 1; i <= 6; i++) insert.run(`r${i}`, 't', i);
    insert.run('s1', 'big', 7);
    // As version 40's catch-up left them: r1, r2 and r4 trimmed (keys gone, rows listed), r3 kept
    // among them; every row in the UUID index; r1, r3 and r4 with a file; s1 in the search index.
    db.exec(`INSERT INTO request_keys (token_number, sorting, seq) SELECT (SELECT number FROM tokens WHERE uuid = token_id), sorting, seq FROM requests WHERE seq NOT IN (1, 2, 4);
      INSERT INTO request_ids (uuid, seq) SELECT uuid, seq FROM requests ORDER BY uuid, seq;
      INSERT INTO request_files VALUES ('r1', 'f', x'01'), ('r3', 'f', x'03'), ('r4', 'f', x'04');
      INSERT INTO request_trimmed (seq) VALUES (1), (2), (4);
      INSERT INTO search_keys (token_number, sorting, seq) SELECT number, 7, 7 FROM tokens WHERE uuid = 'big';
      INSERT INTO search_rows (seq, token_number, plain) SELECT 7, token_number, 1 FROM search_tokens WHERE token_id = 'big';
      INSERT INTO search_fields (seq, method, query) VALUES (7, 'POST', NULL);
      UPDATE request_watermark SET seq = 7`);
    migrate(db);
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'requests' ORDER BY name").pluck().all();
    expect(names).toEqual(['requests_gone', 'requests_note_key']);
    expect(db.prepare('SELECT upto, ids_upto FROM request_sweep').raw().get()).toEqual([0, 0]);
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    const left = () => [count('SELECT count(*) FROM request_ids'), count('SELECT count(*) FROM request_files'), count('SELECT count(*) FROM request_keys'), count('SELECT count(*) FROM request_trimmed')];
    expect(left()).toEqual([7, 3, 4, 3]);
    // A sweep of r1 and r2, the only rows of their range (requests/writer/trims.ts): their UUID
    // entries by range and their files by the sweep, the rows' trigger leaving them alone.
    db.transaction(() => {
      db.exec('UPDATE request_sweep SET upto = 2, ids_upto = 2');
      db.exec('DELETE FROM request_files WHERE request_uuid IN (SELECT uuid FROM requests WHERE seq BETWEEN 1 AND 2)');
      db.exec("DELETE FROM request_ids WHERE uuid BETWEEN 'r1' AND 'r2~' AND seq BETWEEN 1 AND 2");
      db.exec('DELETE FROM requests WHERE seq BETWEEN 1 AND 2');
      db.exec('DELETE FROM request_trimmed WHERE seq <= 2');
      db.exec('UPDATE request_sweep SET upto = 0, ids_upto = 0');
    })();
    expect(left()).toEqual([5, 2, 4, 1]);
    // A sweep of r4, r3 kept among it: the row takes its UUID entry and file, its list entry by range.
    db.transaction(() => {
      db.exec('UPDATE request_sweep SET upto = 4');
      db.exec('DELETE FROM requests WHERE seq IN (SELECT seq FROM request_trimmed WHERE seq <= 4)');
      db.exec('DELETE FROM request_trimmed WHERE seq <= 4');
      db.exec('UPDATE request_sweep SET upto = 0');
    })();
    expect(left()).toEqual([4, 1, 4, 0]);
    // Deleted another way: a kept row takes its key, UUID entry and file; a search-indexed one its
    // search rows too, its full-text entry listed for the purge.
    db.exec("DELETE FROM requests WHERE uuid IN ('r3', 'r5', 's1')");
    expect(left()).toEqual([1, 0, 1, 0]);
    expect(db.prepare('SELECT uuid FROM request_ids').pluck().all()).toEqual(['r6']);
    expect([count('SELECT count(*) FROM search_keys'), count('SELECT count(*) FROM search_rows'), count('SELECT count(*) FROM search_fields')]).toEqual([0, 0, 0]);
    expect(db.prepare('SELECT seq FROM request_text_stale').pluck().all()).toEqual([7]);
    db.close();
  });
});
