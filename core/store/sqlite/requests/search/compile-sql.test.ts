// The SQLite engine's search compiler end to end: the shared search cases (query/fixtures.ts) run
// against a requests table.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../types.js';
import { compileMongo, parseQuery, QuerySyntaxError, type QueryNode } from '../../../query/index.js';
import { searchCases, searchNow, searchSamples, S2, S3, S4, S6 } from '../../../query/fixtures.js';
import { compileSql } from './compile-sql.js';

const TABLE = `CREATE TABLE requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, token_id TEXT NOT NULL,
  type TEXT NOT NULL, team_id INTEGER, ip TEXT, hostname TEXT, method TEXT, user_agent TEXT, url TEXT,
  content_type TEXT, body BLOB NOT NULL, size INTEGER NOT NULL,
  query TEXT, headers TEXT NOT NULL, form TEXT, files TEXT NOT NULL, output TEXT NOT NULL, errors TEXT NOT NULL,
  time REAL NOT NULL, note TEXT, sorting INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, extra TEXT NOT NULL
)`;

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

function sqliteRow(r: Partial<RequestRecord>) {
  return {
    uuid: r.uuid, token_id: r.token_id, type: r.type, team_id: r.team_id ?? null, ip: r.ip, hostname: r.hostname,
    method: r.method, user_agent: r.user_agent, url: r.url, content_type: r.content_type ?? null, body: r.body, size: r.size,
    query: json(r.query), headers: json(r.headers), form: json(r.form), files: json(r.files), output: json(r.custom_action_output),
    errors: json(r.custom_action_errors), time: r.time, note: r.note ?? null, sorting: r.sorting, created_at: r.created_at,
    updated_at: r.updated_at, extra: json(r.extra),
  };
}

describe('compileSql', () => {
  let db: Database.Database;
  const search = (query: string): string[] => {
    const node = parseQuery(query);
    if (!node) throw new Error('empty query');
    const { sql, params } = compileSql(node, searchNow);
    return (db.prepare(`SELECT uuid FROM requests WHERE ${sql}`).all(...params) as Array<{ uuid: string }>).map((r) => r.uuid).sort();
  };

  beforeAll(() => {
    db = new Database(':memory:');
    db.exec(TABLE);
    const cols = Object.keys(sqliteRow(searchSamples[0]));
    const insert = db.prepare(`INSERT INTO requests (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`);
    for (const s of searchSamples) insert.run(sqliteRow(s));
  });
  afterAll(() => db.close());

  it.each(searchCases)('$query', ({ query, expect: uuids }) => {
    expect(search(query)).toEqual([...uuids].sort());
  });

  it('binds every value and JSON path', () => {
    const { sql, params } = compileSql(parseQuery(`headers.user-agent:"'; DROP TABLE requests; --" OR content:"%_\\\\"`)!, searchNow);
    expect(sql).not.toContain('DROP');
    expect(sql).not.toContain('user-agent');
    expect(params).toEqual(['$."user-agent"', "%'; DROP TABLE requests; --%", '%\\%\\_\\\\%']);
    expect(search(`content:"'; DROP TABLE requests; --"`)).toEqual([]);
  });

  it('refuses unsafe keys in hand-built ASTs', () => {
    const bad = (field: string): QueryNode => ({ kind: 'term', field, value: 'x', quoted: false, pos: 0 });
    for (const field of ['headers.a"b', 'query.a\\b', 'headers.$where', 'query.', '$where', 'constructor', '__proto__']) {
      expect(() => compileSql(bad(field), searchNow), field).toThrow(QuerySyntaxError);
      expect(() => compileMongo(bad(field), searchNow), field).toThrow(QuerySyntaxError);
    }
  });

  it('stays under SQLite expression depth limits for long queries', () => {
    const and = Array(2000).fill('e').join(' ');
    expect(search(and)).toEqual([S2, S3, S4, S6]);
    const or = Array(800).fill('z').join(' OR ');
    expect(search(or)).toEqual([]);
    expect(search(`${or} OR weber`)).toEqual([S2]);
  });
});
