// The plain SQL compiler names only the logical request columns (core/store/request-columns.ts),
// through the column reference it is given: the same query runs bare on a requests table and
// qualified on a statement joining a table that shares those names.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { absentValue, REQUEST_COLUMNS } from '../request-columns.js';
import { parseQuery } from './index.js';
import { searchCases, searchNow, searchSamples } from './fixtures.js';
import { compilePlainSql } from './sql.js';
import type { RequestRecord } from '../types.js';

const NAMES = new Set(REQUEST_COLUMNS.map((c) => c.name));

/** A sample as a row of the column table (JSON as text, absent values as a stored row reads them). */
function rowOf(r: Partial<RequestRecord>): unknown[] {
  return REQUEST_COLUMNS.map((c) => {
    const v = r[c.field] ?? absentValue(c, r.type ?? 'web') ?? null;
    return c.json && v !== null ? JSON.stringify(v) : v;
  });
}

describe('compilePlainSql', () => {
  it('names only request columns, each through the column reference', () => {
    const named = new Set<string>();
    for (const { query } of searchCases) {
      const { sql } = compilePlainSql(parseQuery(query)!, searchNow, (c) => (named.add(c), `r.${c}`));
      // No bare column is left: every word before an operator is qualified, a function or a keyword.
      for (const c of NAMES) expect(sql, query).not.toMatch(new RegExp(`(?<![.\\w'$"])${c}(?![\\w'"])`));
    }
    expect([...named].filter((c) => !NAMES.has(c))).toEqual([]);
    expect(named.size).toBeGreaterThan(10);
  });

  it('finds the same requests bare and qualified beside a table sharing column names', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE requests (seq INTEGER PRIMARY KEY AUTOINCREMENT, ${REQUEST_COLUMNS.map((c) => `${c.name} ${c.sql}`).join(', ')})`);
    const insert = db.prepare(`INSERT INTO requests (${[...NAMES].join(', ')}) VALUES (${[...NAMES].map(() => '?').join(', ')})`);
    for (const s of searchSamples) insert.run(rowOf(s));
    // A key table copying some of the row's columns under the same names, as the engine's do.
    db.exec('CREATE TABLE keys AS SELECT seq, token_id, method, type, ip, created_at, size FROM requests');
    for (const { query, expect: uuids } of searchCases) {
      const node = parseQuery(query)!;
      const bare = compilePlainSql(node, searchNow);
      const joined = compilePlainSql(node, searchNow, (c) => `r.${c}`);
      const found = (sql: string, params: unknown[]) =>
        (
          db
            .prepare(sql)
            .pluck()
            .all(...params) as string[]
        ).sort();
      expect(found(`SELECT uuid FROM requests WHERE ${bare.sql}`, bare.params), query).toEqual([...uuids].sort());
      expect(found(`SELECT r.uuid FROM keys k CROSS JOIN requests r ON r.seq = k.seq WHERE ${joined.sql}`, joined.params), query).toEqual([...uuids].sort());
    }
    db.close();
  });
});
