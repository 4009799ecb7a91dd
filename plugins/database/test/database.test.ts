// The database action against the real PostgreSQL and MariaDB servers: the same scenarios on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction, stubDatabases, validateParams } from '@capture/sdk/testing';
import type { Network } from '@capture/sdk';
import { database } from '../src/database.js';
import { MARIADB, PG, requireServer, uniqueName } from './services.js';

const SERVERS = [
  { label: 'PostgreSQL', conn: PG, sleep: 'select pg_sleep(5)', badLogin: { username: 'no_such_role_capture' }, badLoginError: /role "no_such_role_capture" does not exist/, idType: 'serial primary key' },
  { label: 'MariaDB', conn: MARIADB, sleep: 'select sleep(5)', badLogin: { password: 'wrong-password' }, badLoginError: /Access denied for user 'root'/, idType: 'int auto_increment primary key' },
] as const;

/** A name the system resolver does not know, mapped to the loopback server: only the address is used. */
const mappedNetwork = (asked: string[]): Network => ({
  async resolve(host) {
    asked.push(host);
    return { address: '127.0.0.1', family: 4 };
  },
});

describe.each(SERVERS)('database on $label', ({ label, conn, sleep, badLogin, badLoginError, idType }) => {
  const table = uniqueName('capture_db');
  const run = (params: Record<string, unknown>, options?: Parameters<typeof runAction>[2]) => runAction(database, { ...conn, ...params }, options);

  beforeAll(async () => {
    await requireServer(label, conn.host, conn.port);
    const r = await run({ statement: `CREATE TABLE ${table} (id ${idType}, name varchar(100) NOT NULL, note text, score int)` });
    expect(r.errors).toEqual([]);
  });

  afterAll(async () => {
    await run({ statement: `DROP TABLE IF EXISTS ${table}` });
  });

  it('inserts with named parameters, values taken from variables and kept intact', async () => {
    const r = await run(
      {
        statement: `INSERT INTO ${table} (name, note, score) VALUES (:name, :note, :score)`,
        params: [
          { name: ':name', value: 'Ada' },
          { name: 'note', value: '$request.content$' },
          { name: 'score', value: 10 },
        ],
        variable_name: 'ins',
      },
      { request: { content: `it's "quoted"; DROP TABLE ${table}; -- :x ?` } },
    );
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ 'ins.rows': '1', 'ins.json': '[]' });
    expect(r.output).toEqual([expect.stringMatching(/^Query affected 1 row in \d+ ms$/)]);
  });

  it('inserts with positional parameters (NULL included)', async () => {
    const r = await run({ statement: `INSERT INTO ${table} (name, note, score) VALUES (?, ?, ?), (?, ?, ?)`, params: ['Grace', null, '20', 'Linus', 'n', 30], variable_name: 'ins' });
    expect(r.errors).toEqual([]);
    expect(r.vars['ins.rows']).toBe('2');
  });

  it('selects into one variable per cell, $p.json$ and $p.rows$', async () => {
    const r = await run({ statement: `SELECT name, note, score FROM ${table} WHERE score >= :min ORDER BY score`, params: { min: 10 }, variable_name: 'out' });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({
      'out.0.name': 'Ada',
      'out.0.note': `it's "quoted"; DROP TABLE ${table}; -- :x ?`,
      'out.0.score': '10',
      'out.1.name': 'Grace',
      'out.1.note': '',
      'out.2.name': 'Linus',
      'out.rows': '3',
    });
    expect(JSON.parse(r.vars['out.json'])).toEqual([
      { name: 'Ada', note: `it's "quoted"; DROP TABLE ${table}; -- :x ?`, score: 10 },
      { name: 'Grace', note: null, score: 20 },
      { name: 'Linus', note: 'n', score: 30 },
    ]);
    expect(r.output).toEqual([expect.stringMatching(/^Query returned 3 rows in \d+ ms$/)]);
  });

  it('updates with positional parameters and reports the affected rows', async () => {
    const r = await run({ statement: `UPDATE ${table} SET score = score + ? WHERE score > ?`, params: [1, 15], variable_name: 'up' });
    expect(r.errors).toEqual([]);
    expect(r.vars['up.rows']).toBe('2');
    const check = await run({ statement: `SELECT sum(score) AS total, count(*) AS n FROM ${table}`, variable_name: 'c' });
    expect(check.vars).toMatchObject({ 'c.0.n': '3', 'c.rows': '1' });
    expect(Number(check.vars['c.0.total'])).toBe(62);
  });

  it('an empty result sets $p.rows$ to 0 and $p.json$ to []', async () => {
    const r = await run({ statement: `SELECT * FROM ${table} WHERE name = ?`, params: ['nobody'], variable_name: 'none' });
    expect(r.vars).toMatchObject({ 'none.rows': '0', 'none.json': '[]' });
    expect(r.output).toEqual([expect.stringMatching(/^Query returned 0 rows/)]);
  });

  it('without a prefix sets no variables', async () => {
    const r = await run({ statement: `SELECT name FROM ${table}` });
    expect(r.vars).toEqual({});
    expect(r.output).toEqual([expect.stringMatching(/^Query returned 3 rows/)]);
  });

  it('bad SQL sets $p.error$ and records the error', async () => {
    const r = await run({ statement: `SELECT * FROM ${table}_missing`, variable_name: 'bad' });
    expect(r.vars['bad.error']).toMatch(/doesn't exist|does not exist/);
    expect(r.vars['bad.rows']).toBeUndefined();
    expect(r.errors).toEqual([`Query on 127.0.0.1:${conn.port} failed: ${r.vars['bad.error']}`]);
  });

  it('bad SQL without a prefix is an action error', async () => {
    const r = await run({ statement: 'SELEC 1' });
    expect(r.errors).toEqual([expect.stringMatching(/^Query on 127\.0\.0\.1:\d+ failed: .*syntax/)]);
    expect(r.vars).toEqual({ 'error.1': expect.any(String) });
  });

  it('bad credentials set $p.error$', async () => {
    const r = await run({ ...badLogin, statement: 'SELECT 1', variable_name: 'login' });
    expect(r.vars['login.error']).toMatch(badLoginError);
    expect(r.errors).toHaveLength(1);
  });

  it('a slow query stops at the time left in the chain', async () => {
    const t0 = Date.now();
    const r = await run({ statement: sleep, variable_name: 'slow' }, { budgetMs: 1500 });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(r.vars['slow.error']).toMatch(/^Query timed out after 1\.3 s$/);
    expect(r.errors).toEqual([expect.stringContaining('timed out')]);
  });

  it('connects to the address the outbound policy returns, never to the name', async () => {
    const asked: string[] = [];
    const r = await run({ host: 'db.capture.invalid', statement: 'SELECT 1 AS one', variable_name: 'v' }, { services: { net: mappedNetwork(asked) } });
    expect(r.errors).toEqual([]);
    expect(asked).toEqual(['db.capture.invalid']);
    expect(r.vars['v.0.one']).toBe('1');
  });

  it('an address the policy refuses sets $p.error$ and nothing is connected', async () => {
    const refuse: Network = {
      resolve: async (host) => {
        throw new Error(`${host} resolves to 10.1.2.3, which the outbound policy does not allow`);
      },
    };
    const r = await run({ host: 'internal.example', statement: 'SELECT 1', variable_name: 'v' }, { services: { net: refuse } });
    expect(r.vars['v.error']).toBe('internal.example resolves to 10.1.2.3, which the outbound policy does not allow');
    expect(r.errors).toEqual([`Query on internal.example:${conn.port} failed: internal.example resolves to 10.1.2.3, which the outbound policy does not allow`]);
  });

  it('mixed parameters are refused at run time too', async () => {
    const r = await run({ statement: '$sql$', params: ['1'], variable_name: 'v' }, { vars: { sql: 'SELECT :a, ?' } });
    expect(r.errors).toEqual([expect.stringMatching(/statement.*cannot be mixed/)]);
  });

  it('a missing named value sets $p.error$', async () => {
    const r = await run({ statement: `SELECT * FROM ${table} WHERE name = :name`, params: [], variable_name: 'v' });
    expect(r.vars['v.error']).toBe('No value given for parameter :name');
  });

  it('repeat runs the following actions once per row', async () => {
    const r = await run({ statement: `SELECT name FROM ${table} ORDER BY name`, variable_name: 'row', repeat: true });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual([expect.stringMatching(/^Query returned 3 rows/), 'Repeating the following actions for 3 rows']);
  });
});

describe('database on PostgreSQL only', () => {
  beforeAll(() => requireServer('PostgreSQL', PG.host, PG.port));

  it('sends an endpoint ID from the password as the endpoint option', async () => {
    // Plain PostgreSQL refuses the option, which shows it arrived (Neon's proxy reads it instead).
    const r = await runAction(database, { ...PG, password: 'endpoint=ep-cool-name-123;secret', statement: 'SELECT 1', variable_name: 'v' });
    expect(r.vars['v.error']).toBe('invalid command-line argument for server process: endpoint=ep-cool-name-123');
  });

  it('JSON, NULL, bigint and timestamps keep their shape', async () => {
    const r = await runAction(database, {
      ...PG,
      statement: `SELECT '{"a":[1,2]}'::jsonb AS j, NULL AS z, 9007199254740993::int8 AS huge, 42::int8 AS n, '2024-01-02 03:04:05'::timestamp AS t, :flag::boolean AS b`,
      params: [{ name: 'flag', value: 'true' }],
      variable_name: 'v',
    });
    expect(r.errors).toEqual([]);
    expect(r.vars).toMatchObject({ 'v.0.j': '{"a":[1,2]}', 'v.0.z': '', 'v.0.huge': '9007199254740993', 'v.0.n': '42', 'v.0.t': '2024-01-02 03:04:05', 'v.0.b': 'true' });
    expect(JSON.parse(r.vars['v.json'])).toEqual([{ j: { a: [1, 2] }, z: null, huge: '9007199254740993', n: 42, t: '2024-01-02 03:04:05', b: true }]);
  });

  it('keeps the first 1000 rows in variables and counts them all', async () => {
    const r = await runAction(database, { ...PG, statement: 'SELECT g AS n FROM generate_series(1, 1005) AS g', variable_name: 'v' });
    expect(r.vars).toMatchObject({ 'v.rows': '1005', 'v.999.n': '1000' });
    expect(r.vars['v.1000.n']).toBeUndefined();
    expect(JSON.parse(r.vars['v.json'])).toHaveLength(1000);
    expect(r.output).toEqual([expect.stringMatching(/^Query returned 1005 rows in \d+ ms; variables hold the first 1000$/)]);
  });

  it('a $$...$$ literal is not a parameter', async () => {
    const r = await runAction(database, { ...PG, statement: 'SELECT * FROM (VALUES (:a), (:b)) AS v(x) WHERE x <> $$:b$$', params: { a: 'one', b: 'two' }, variable_name: 'v' });
    expect(r.vars).toMatchObject({ 'v.0.x': 'one', 'v.1.x': 'two', 'v.rows': '2' });
  });

  it('INSERT ... RETURNING gives the new rows', async () => {
    const table = uniqueName('capture_ret');
    await runAction(database, { ...PG, statement: `CREATE TABLE ${table} (id serial primary key, name text)` });
    try {
      const r = await runAction(database, { ...PG, statement: `INSERT INTO ${table} (name) VALUES (?), (?) RETURNING id, name`, params: ['a', 'b'], variable_name: 'v' });
      expect(r.errors).toEqual([]);
      expect(r.vars).toMatchObject({ 'v.0.id': '1', 'v.0.name': 'a', 'v.1.id': '2', 'v.rows': '2' });
    } finally {
      await runAction(database, { ...PG, statement: `DROP TABLE ${table}` });
    }
  });
});

describe('database on a hosted database (database_id)', () => {
  it('runs the statement through the Databases service with named parameters, rows into variables', async () => {
    const databases = stubDatabases((id, sql) =>
      sql.startsWith('select')
        ? {
            result: [
              { id: 1, name: 'Ann' },
              { id: 2, name: 'Bo' },
            ],
            rows: 2,
          }
        : { result: [], rows: 3 },
    );
    const r = await runAction(database, { database_id: 'shop', statement: 'select id, name from users where id > :min', params: [{ name: ':min', value: '0' }], variable_name: 'out' }, { services: { databases } });
    expect(r.errors).toEqual([]);
    expect(databases.calls).toEqual([{ id: 'shop', sql: 'select id, name from users where id > :min', params: { min: '0' } }]);
    expect(r.vars).toMatchObject({
      'out.0.name': 'Ann',
      'out.1.id': '2',
      'out.rows': '2',
      'out.json': JSON.stringify([
        { id: 1, name: 'Ann' },
        { id: 2, name: 'Bo' },
      ]),
    });
    const changed = await runAction(database, { database_id: 'shop', statement: 'update users set name = ?', params: ['x'] }, { services: { databases } });
    expect(databases.calls.at(-1)!.params).toEqual(['x']);
    expect(changed.output.join(' ')).toMatch(/affected 3 rows/);
  });

  it('puts an SQL error in $<prefix>.error$ and the action errors', async () => {
    const databases = stubDatabases(() => ({ result: null, error: 'ERROR: relation "nope" does not exist (SQLSTATE 42P01)' }));
    const r = await runAction(database, { database_id: 'shop', statement: 'select * from nope', variable_name: 'out' }, { services: { databases } });
    expect(r.vars['out.error']).toMatch(/relation "nope" does not exist/);
    expect(r.errors.join(' ')).toMatch(/Query on the database shop failed/);
  });
});

describe('database parameters', () => {
  const base = { type: 'pgsql', host: 'db.example', database: 'app', username: 'u', statement: 'SELECT 1' };

  it('accepts the documented parameters', () => {
    expect(() => validateParams(database, { ...base, port: 5433, password: 'p', params: [{ name: ':id', value: '1' }], variable_name: 'out', charset: 'UTF8' })).not.toThrow();
    expect(() => validateParams(database, { ...base, type: 'sqlsrv', port: '$port$' })).not.toThrow();
  });

  it('requires type, host, database, username and statement', () => {
    for (const field of ['type', 'host', 'database', 'username', 'statement']) {
      const params: Record<string, unknown> = { ...base };
      delete params[field];
      expect(() => validateParams(database, params), field).toThrow(`parameters.${field}`);
    }
  });

  it('needs no server or login with a hosted database', () => {
    expect(() => validateParams(database, { database_id: 'shop', statement: 'SELECT 1' })).not.toThrow();
    expect(() => validateParams(database, { database_id: '', statement: 'SELECT 1' })).toThrow('parameters.type: is required (or choose a hosted database)');
  });

  it('refuses an unknown database type and a bad port', () => {
    expect(() => validateParams(database, { ...base, type: 'oracle' })).toThrow(/parameters\.type/);
    expect(() => validateParams(database, { ...base, port: 70000 })).toThrow(/parameters\.port: must be a port number/);
  });

  it('refuses named and positional parameters mixed in one statement', () => {
    expect(() => validateParams(database, { ...base, statement: 'SELECT * FROM t WHERE a = :a AND b = ?' })).toThrow('parameters.statement: Named (:name) and positional (?) parameters cannot be mixed in one statement');
  });

  it('requires a variable name with repeat', () => {
    expect(() => validateParams(database, { ...base, repeat: true })).toThrow('parameters.variable_name: is required with repeat');
  });
});
