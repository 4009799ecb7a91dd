// The two recipes of docs/storage.md, followed on a scratch database: adding a column to requests
// through the column table, and making a search field fast through the search keys. When either
// test needs a change, so does the recipe.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../query/index.js';
import { REQUEST_COLUMNS, type RequestColumn } from '../../request-columns.js';
import { requestDocFrom, requestFromDoc } from '../../mongo/docs.js';
import { sampleRequest } from '../../store.contract.js';
import type { RequestRecord } from '../../types.js';
import { migrate } from '../migrations.js';
import { requestRowCodec } from './columns.js';
import { compileSql } from './search/compile-sql.js';
import { SEARCH_KEYS, searchKeyInsert, type SearchKey } from './search/search-keys.js';

describe('recipe: a new column on requests', () => {
  // Step 1: a line in REQUEST_COLUMNS (here a copy of the table; a column every capture binds goes
  // before the `usually` ones) and the field on RequestRecord (here cast).
  const column: RequestColumn = { name: 'received_via', field: 'received_via' as keyof RequestRecord, sql: "TEXT NOT NULL DEFAULT 'direct'", absent: 'direct' };
  const firstUsual = REQUEST_COLUMNS.findIndex((c) => c.usually);
  const columns = [...REQUEST_COLUMNS.slice(0, firstUsual), column, ...REQUEST_COLUMNS.slice(firstUsual)];
  const withVia = (r: RequestRecord, v: string) => ({ ...r, received_via: v }) as RequestRecord;

  it('is written, read back, copied and kept in MongoDB documents from the column table', () => {
    const db = new Database(':memory:');
    migrate(db);
    // Step 2: a migration adding it (appended to migrations.ts; an existing row gets the default).
    db.exec(`ALTER TABLE requests ADD COLUMN ${column.name} ${column.sql}`);
    const codec = requestRowCodec(columns);
    const plain = withVia(sampleRequest('t1'), 'proxy');
    const full = withVia(sampleRequest('t1', { note: 'a note', extra: { k: 1 } }), 'direct');
    // The writer's row: the new column is bound in both forms (plain and full).
    for (const r of [plain, full]) {
      const row = codec.toRow(r);
      expect(row[codec.position('received_via')]).toBe((r as unknown as { received_via: string }).received_via);
      db.prepare(codec.insertSql(row.length === codec.plainColumns)).run(row);
    }
    expect(codec.toRow(plain)).toHaveLength(codec.plainColumns);
    // The reader, which the store copy (transfer.ts) reads rows with too: the record comes back whole.
    const rows = db.prepare<[], Record<string, unknown>>('SELECT * FROM requests ORDER BY seq').all();
    expect(rows.map((r) => codec.toRecord(r))).toEqual([plain, full]);
    // A row written before the column existed reads as its `absent` value.
    expect(codec.toRecord({ ...rows[0]!, received_via: null })).toMatchObject({ received_via: 'direct' });
    // MongoDB documents carry it as a field of its own, and an older document without it reads as `absent`.
    const doc = requestDocFrom(columns)(plain, {} as never);
    expect(doc).toMatchObject({ _id: plain.uuid, received_via: 'proxy' });
    expect(requestFromDoc(columns)(doc)).toEqual(plain);
    const older = { ...doc } as Record<string, unknown>;
    delete older.received_via;
    expect(requestFromDoc(columns)(older as never)).toMatchObject({ received_via: 'direct' });
    db.close();
  });

  it('is the table the store itself uses', () => {
    expect(requestRowCodec().columns).toBe(REQUEST_COLUMNS);
    expect(requestRowCodec().insertSql(false)).toBe(`INSERT INTO requests (${REQUEST_COLUMNS.map((c) => c.name).join(', ')}) VALUES (${REQUEST_COLUMNS.map(() => '?').join(', ')})`);
  });
});

describe('recipe: a fast search field', () => {
  // Step 1: a line in SEARCH_KEYS (here a copy): hostname, kept in search_keys under its own name.
  const key: SearchKey = { column: 'hostname', key: 'hostname' };
  const keys = [...SEARCH_KEYS, key];
  const plan = (q: string, k?: readonly SearchKey[]) => compileSql(parseQuery(q)!, 0, { keyed: true, keys: k });

  it('makes the planner compare the key, not the row', () => {
    expect(plan('hostname:example.test').sql).toContain('hostname');
    expect(plan('hostname:example.test').needsRow).toBe(true);
    const fast = plan('hostname:example.test', keys);
    expect(fast.sql).toContain('k.hostname');
    expect(fast.needsRow).toBe(false);
  });

  it('fills the key from the rows, and a keyed search finds by it', () => {
    const db = new Database(':memory:');
    migrate(db);
    // Step 2: a migration adding the key column and its index (and filling it for listed tokens).
    db.exec(`ALTER TABLE search_keys ADD COLUMN ${key.key} TEXT; CREATE INDEX search_keys_hostname ON search_keys (token_number, ${key.key} COLLATE NOCASE, sorting, seq)`);
    // The requests' token: search keys carry its number.
    db.exec(`INSERT INTO tokens (uuid, redirect, actions, cors, timeout, listen, premium, ip, user_agent, default_content,
      default_status, default_content_type, request_limit, created_at, updated_at) VALUES ('t1', 0, 0, 0, 0, 0, 0, '', '', '', 200, 'text/plain', 50000, 0, 0)`);
    const codec = requestRowCodec();
    for (const host of ['a.example', 'b.example', 'a.example']) {
      const row = codec.toRow(sampleRequest('t1', { hostname: host }));
      db.prepare(codec.insertSql(row.length === codec.plainColumns)).run(row);
    }
    // Step 3: the catch-up's and the fill's INSERT come from the same list (index-writes.ts).
    const insert = searchKeyInsert(keys);
    expect(insert.columns).toContain('hostname');
    db.exec(`INSERT INTO search_keys (${insert.columns}) SELECT ${insert.values} FROM ${insert.from}`);
    const { sql, params } = plan('hostname:a.example', keys);
    const found = db.prepare(`SELECT count(*) AS n FROM search_keys k WHERE k.token_number = (SELECT number FROM tokens WHERE uuid = 't1') AND ${sql}`).get(...params) as { n: number };
    expect(found.n).toBe(2);
    db.close();
  });
});
