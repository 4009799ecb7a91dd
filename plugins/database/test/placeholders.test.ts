import { describe, expect, it } from 'vitest';
import { bindParameters, mixesStyles, scanPlaceholders } from '../src/placeholders.js';

describe('named parameters', () => {
  const params = [
    { name: ':id', value: 7 },
    { name: 'name', value: 'Ada' },
  ];

  it('become $n for PostgreSQL, a repeated name keeping its number', () => {
    expect(bindParameters('select * from t where id = :id or parent = :id and name = :name', 'pgsql', params)).toEqual({
      sql: 'select * from t where id = $1 or parent = $1 and name = $2',
      values: [7, 'Ada'],
      style: 'named',
    });
  });

  it('become ? for MySQL, one value per occurrence', () => {
    expect(bindParameters('select * from t where id = :id or parent = :id and name = :name', 'mysql', params)).toEqual({
      sql: 'select * from t where id = ? or parent = ? and name = ?',
      values: [7, 7, 'Ada'],
      style: 'named',
    });
  });

  it('become @pN for SQL Server', () => {
    expect(bindParameters('select :name, :id, :name', 'sqlsrv', params)).toMatchObject({ sql: 'select @p1, @p2, @p1', values: ['Ada', 7] });
  });

  it('can be given as a name -> value object', () => {
    expect(bindParameters('insert into t values (:a, :b)', 'pgsql', { a: 'x', b: null }).values).toEqual(['x', null]);
  });

  it('a pair without a value is NULL', () => {
    expect(bindParameters('select :a', 'pgsql', [{ name: 'a' }]).values).toEqual([null]);
  });

  it('a missing value is an error naming the parameters', () => {
    expect(() => bindParameters('select :a, :b, :c', 'pgsql', [{ name: 'b', value: 1 }])).toThrow('No value given for parameters :a, :c');
  });

  it('a plain list is refused', () => {
    expect(() => bindParameters('select :a', 'pgsql', ['1'])).toThrow(/Named parameters need \{"name", "value"\} pairs/);
  });
});

describe('positional parameters', () => {
  it('are numbered for PostgreSQL and SQL Server and kept for MySQL', () => {
    expect(bindParameters('select ?, ?', 'pgsql', ['a', 2]).sql).toBe('select $1, $2');
    expect(bindParameters('select ?, ?', 'sqlsrv', ['a', 2]).sql).toBe('select @p1, @p2');
    expect(bindParameters('select ?, ?', 'mysql', ['a', 2])).toEqual({ sql: 'select ?, ?', values: ['a', 2], style: 'positional' });
  });

  it('take values from {name, value} pairs in order', () => {
    expect(bindParameters('select ?, ?', 'pgsql', [{ name: 'x', value: 'a' }, { value: 'b' }]).values).toEqual(['a', 'b']);
  });

  it('must match the number of values', () => {
    expect(() => bindParameters('select ?, ?', 'pgsql', ['a'])).toThrow('The statement has 2 positional (?) parameters but 1 value was given');
    expect(() => bindParameters('select ?', 'mysql', [])).toThrow('has 1 positional (?) parameter but 0 values were given');
  });

  it('cannot be given as an object', () => {
    expect(() => bindParameters('select ?', 'mysql', { a: 1 })).toThrow('Positional (?) parameters need a list of values');
  });
});

describe('the tokenizer', () => {
  const kinds = (sql: string, d: 'pgsql' | 'mysql' | 'sqlsrv') => scanPlaceholders(sql, d).map((p) => (p.kind === 'named' ? `:${p.name}` : p.kind));

  it('skips string literals, with doubled quotes', () => {
    expect(kinds("select 'a :b ? ''c :d''', :e", 'pgsql')).toEqual([':e']);
  });

  it('skips comments', () => {
    expect(kinds('select 1 -- :a ?\n, :b /* ? :c */ , ?', 'pgsql')).toEqual([':b', 'positional']);
    expect(kinds('select 1 # :a\n, ?', 'mysql')).toEqual(['positional']);
    expect(kinds('select /* outer /* inner :a */ still :b */ :c', 'pgsql')).toEqual([':c']);
  });

  it('skips :: casts', () => {
    expect(kinds("select :a::int, '1'::text, x::jsonb", 'pgsql')).toEqual([':a']);
    expect(kinds('select geography::Point(:lat, :lng, 4326)', 'sqlsrv')).toEqual([':lat', ':lng']);
  });

  it("skips PostgreSQL dollar quotes and backslashes in E'' strings", () => {
    expect(kinds('select $$ :a ? $$, $fn$ :b $fn$, :c', 'pgsql')).toEqual([':c']);
    expect(kinds("select E'it\\'s :a', :b", 'pgsql')).toEqual([':b']);
    expect(kinds('select x$y, :b', 'pgsql')).toEqual([':b']);
  });

  it('skips MySQL backslash escapes and backticks', () => {
    expect(kinds('select \'it\\\'s :a\', "b \\" ?", `c:d?`, :e', 'mysql')).toEqual([':e']);
  });

  it('skips SQL Server bracketed names', () => {
    expect(kinds('select [a:b?]]c], :d', 'sqlsrv')).toEqual([':d']);
  });

  it('reads ?? as a literal ?', () => {
    expect(bindParameters("select data ?? 'key', ?", 'pgsql', ['x'])).toMatchObject({ sql: "select data ? 'key', $1", values: ['x'] });
  });

  it('does not take := or a colon before a digit as a parameter', () => {
    expect(kinds('set @a := 1; select a[1:2]', 'mysql')).toEqual([]);
  });

  it('finds a mix of named and positional parameters', () => {
    expect(mixesStyles('select :a, ?', 'pgsql')).toBe(true);
    expect(mixesStyles("select :a, '?'", 'pgsql')).toBe(false);
    expect(() => bindParameters('select :a, ?', 'mysql', [])).toThrow('Named (:name) and positional (?) parameters cannot be mixed');
  });

  it('leaves a statement without parameters alone, ignoring values', () => {
    expect(bindParameters("select ':x'", 'pgsql', ['unused'])).toEqual({ sql: "select ':x'", values: [], style: 'none' });
  });
});
