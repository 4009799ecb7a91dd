// The Database Manager's statement pieces: names quoted, types only from the list, defaults as literals.
import { describe, expect, it } from 'vitest';
import { Identifier, columnDefinition, columnType, createTableSql, quoteIdent, quoteLiteral, tableRef } from './ddl.js';

describe('Database Manager DDL', () => {
  it('quotes names and literals by doubling their quotes', () => {
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(tableRef('whdb_1', 'x"; drop table y; --')).toBe('"whdb_1"."x""; drop table y; --"');
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(() => quoteLiteral('a\u0000b')).toThrow(/NUL/);
  });

  it('accepts listed types, their aliases, lengths and arrays, and nothing else', () => {
    const sql = (t: string, allowSerial = true) => columnType(t, { allowSerial });
    expect(sql('INT')).toEqual({ sql: 'integer' });
    expect(sql('character varying (40)')).toEqual({ sql: 'varchar(40)' });
    expect(sql('numeric(10, 2)')).toEqual({ sql: 'numeric(10,2)' });
    expect(sql('timestamp with time zone')).toEqual({ sql: 'timestamptz' });
    expect(sql('text[]')).toEqual({ sql: 'text[]' });
    expect(sql('serial')).toEqual({ sql: 'serial' });
    for (const bad of ['money', 'int; drop table x', 'integer(4)', 'varchar(0)', 'numeric(2,5)', 'text)', "text default 'x'", 'serial[]']) expect(sql(bad), bad).toHaveProperty('error');
    expect(sql('serial', false)).toMatchObject({ error: expect.stringMatching(/only possible for a new column/) });
  });

  it('builds column definitions and CREATE TABLE from validated parts', () => {
    expect(columnDefinition({ name: 'n', typeSql: 'integer', nullable: false, default: { value: "1'" } })).toBe(`"n" integer NOT NULL DEFAULT '1'''`);
    expect(columnDefinition({ name: 'at', typeSql: 'timestamptz', nullable: true, default: { expression: 'now()' } })).toBe('"at" timestamptz DEFAULT now()');
    expect(createTableSql(tableRef('s', 't'), [{ name: 'id', typeSql: 'serial', nullable: false }], ['id'])).toBe('CREATE TABLE "s"."t" ("id" serial NOT NULL, PRIMARY KEY ("id"))');
  });

  it('refuses names over 63 bytes and with control characters', () => {
    expect(Identifier.safeParse('é'.repeat(31)).success).toBe(true);
    expect(Identifier.safeParse('é'.repeat(32)).success).toBe(false);
    expect(Identifier.safeParse('a\nb').success).toBe(false);
    expect(Identifier.safeParse('  ').success).toBe(false);
  });
});
