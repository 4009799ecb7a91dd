// The SQLite engine's search compiler end to end: the shared search cases (query/fixtures.ts) run
// against a requests table.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_COLUMNS } from '../../../request-columns.js';
import type { RequestRecord } from '../../../types.js';
import { insertSql, PLAIN_COLUMNS, toRow } from '../columns.js';
import { compileMongo, parseQuery, QuerySyntaxError, type QueryNode } from '../../../query/index.js';
import { searchCases, searchNow, searchSamples, S2, S3, S4, S6 } from '../../../query/fixtures.js';
import { compileSql } from './compile-sql.js';

// The requests table as the column table declares it (core/store/request-columns.ts).
const TABLE = `CREATE TABLE requests (seq INTEGER PRIMARY KEY AUTOINCREMENT, ${REQUEST_COLUMNS.map((c) => `${c.name} ${c.sql}`).join(', ')})`;

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
    for (const s of searchSamples) {
      const row = toRow(s as RequestRecord);
      db.prepare(insertSql(row.length === PLAIN_COLUMNS)).run(row);
    }
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
