// The Databases API and db() end to end, against the PostgreSQL server of this machine
// (DATABASES_TEST_URL, default postgres://postgres@127.0.0.1:5432/test): create, list, query with
// both parameter styles, errors in `error`, the 1000-row cap, the statement timeout, isolation
// between users' databases and from the rest of the server, delete, db() in a chain, and the
// server without Databases configured.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleName } from '../../databases/service.js';
import { connectPostgresAdmin, createHostedDatabase, DATABASES_TEST_URL, dropHostedDatabases } from '../../../test/helpers/postgres.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let admin: pg.Client | undefined;
let s: TestServer;
let alice: { id: number; key: string };
let bob: { id: number; key: string };
const created: string[] = [];
const probeTable = `capture_probe_${process.pid}_${Date.now()}`;

beforeAll(async () => {
  admin = await connectPostgresAdmin();
  // A table of someone else on the same server (as the service's own tables would be).
  await admin.query(`CREATE TABLE public.${probeTable} (secret text); INSERT INTO public.${probeTable} VALUES ('admin only')`);
  s = await startTestServer({ DATABASES_POSTGRES_URL: DATABASES_TEST_URL, DATABASES_STATEMENT_TIMEOUT_MS: '700' });
  alice = await s.user(true);
  bob = await s.user(false);
});

afterAll(async () => {
  await s?.close();
  if (!admin) return;
  await dropHostedDatabases(admin, created);
  await admin.query(`DROP TABLE IF EXISTS public.${probeTable}`);
  await admin.end();
});

const createDb = (key: string, name: string) => createHostedDatabase(s, key, { name, plan: 'db-s' }, created);

const query = (key: string, id: string, q: string, params?: unknown) => s.call('POST', `/databases/${id}/query`, { key, json: params === undefined ? { query: q } : { query: q, params } });

describe('databases API (PostgreSQL)', () => {
  it('creates, lists, gets and renames databases of the caller only', async () => {
    const id = await createDb(alice.key, 'Shop');
    const got = await s.call('GET', `/databases/${id}`, { key: alice.key });
    expect(got.status).toBe(200);
    expect(got.data).toMatchObject({ id, name: 'Shop', tables_used: 0, bytes_used: 0 });
    const list = await s.call('GET', '/databases', { key: alice.key });
    expect(list.data.data.map((d: { id: string }) => d.id)).toContain(id);
    expect(list.data.per_page).toBe(15);
    expect((await s.call('GET', '/databases?per_page=101', { key: alice.key })).status).toBe(422);
    expect((await s.call('GET', '/databases', { key: bob.key })).data.data).toEqual([]);
    expect((await s.call('GET', `/databases/${id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('GET', '/databases/not-a-uuid', { key: alice.key })).status).toBe(404);
    expect((await s.call('GET', '/databases')).status).toBe(401);
    expect((await s.call('POST', '/databases', { key: alice.key, json: { name: '' } })).status).toBe(422);
    const renamed = await s.call('PUT', `/databases/${id}`, { key: alice.key, json: { name: 'Store' } });
    expect(renamed.data.name).toBe('Store');
    expect((await s.call('PUT', `/databases/${id}`, { key: bob.key, json: { name: 'Mine' } })).status).toBe(404);
  });

  it('runs queries with named, positional and no parameters', async () => {
    const id = await createDb(alice.key, 'users');
    const made = await query(alice.key, id, 'create table users (id serial primary key, name text, email text, meta jsonb, born date)');
    expect(made.status).toBe(200);
    expect(made.data).toMatchObject({ result: [], error: null });
    expect(typeof made.data.time).toBe('number');

    const positional = await query(alice.key, id, 'insert into users (name, email, meta, born) values (?, ?, ?, ?) returning id', ['Jack Daniels', 'jack@example.com', { vip: true }, '1990-01-02']);
    expect(positional.data).toMatchObject({ result: [{ id: 1 }], error: null });
    const named = await query(alice.key, id, 'insert into users (name, email) values (:name, :email)', { name: 'Elijah Craig', email: 'eli@example.com' });
    expect(named.data).toMatchObject({ result: [], error: null });

    const like = await query(alice.key, id, "select name, email, meta, born from users where email like concat('%', :domain) order by id", { domain: '@example.com' });
    expect(like.data.result).toEqual([
      { name: 'Jack Daniels', email: 'jack@example.com', meta: { vip: true }, born: '1990-01-02' },
      { name: 'Elijah Craig', email: 'eli@example.com', meta: null, born: null },
    ]);
    const listed = await query(alice.key, id, "select name from users where email like concat('%', ?)", ['@example.com']);
    expect(listed.data.result).toHaveLength(2);
    const plain = await query(alice.key, id, "select name from users where email = 'jack@example.com'");
    expect(plain.data).toMatchObject({ result: [{ name: 'Jack Daniels' }], error: null });
    // `$1` written out takes a list as well; `::` casts are not parameters.
    const dollar = await query(alice.key, id, 'select $1::int + 1 as n', [41]);
    expect(dollar.data.result).toEqual([{ n: 42 }]);

    const got = await s.call('GET', `/databases/${id}`, { key: alice.key });
    expect(got.data.tables_used).toBe(1);
    expect(got.data.bytes_used).toBeGreaterThan(0);
  });

  it('answers SQL and parameter errors in `error`, never as a 5xx', async () => {
    const id = await createDb(alice.key, 'errors');
    const missing = await query(alice.key, id, 'select * from nonexisting_table');
    expect(missing.status).toBe(200);
    expect(missing.data.result).toBeNull();
    expect(missing.data.error).toMatch(/relation "nonexisting_table" does not exist.*42P01/);
    const syntax = await query(alice.key, id, 'selec 1');
    expect(syntax.data.error).toMatch(/syntax error/);
    const noValue = await query(alice.key, id, 'select :a as a, :b as b', { a: 1 });
    expect(noValue.data).toMatchObject({ result: null, error: 'No value given for parameter :b' });
    const mixed = await query(alice.key, id, 'select :a, ?', [1]);
    expect(mixed.data.error).toMatch(/cannot be mixed/);
    const count = await query(alice.key, id, 'select ?, ?', [1]);
    expect(count.data.error).toMatch(/2 positional/);
    const two = await query(alice.key, id, 'select 1; select 2');
    expect(two.data.error).toMatch(/multiple commands/);
    const dup = await query(alice.key, id, 'create table t (id int primary key); ');
    expect(dup.data.error).toBeNull();
    await query(alice.key, id, 'insert into t values (1)');
    const conflict = await query(alice.key, id, 'insert into t values (1)');
    expect(conflict.data.error).toMatch(/duplicate key.*DETAIL: Key \(id\)=\(1\) already exists.*23505/);
    // The failed statement rolled back; the connection serves the next query.
    expect((await query(alice.key, id, 'select count(*)::int as n from t')).data.result).toEqual([{ n: 1 }]);

    expect((await s.call('POST', `/databases/${id}/query`, { key: alice.key, json: {} })).status).toBe(422);
    expect((await s.call('POST', `/databases/${id}/query`, { key: alice.key, json: { query: 'select 1', params: 'x' } })).status).toBe(422);
    expect((await query(bob.key, id, 'select 1')).status).toBe(404);
    expect((await s.call('POST', `/databases/${id}/query`, { json: { query: 'select 1' } })).status).toBe(401);
  });

  it('returns at most 1000 rows, counting all of them', async () => {
    const id = await createDb(alice.key, 'big');
    const r = await query(alice.key, id, 'select g from generate_series(1, 2500) g');
    expect(r.data.error).toBeNull();
    expect(r.data.result).toHaveLength(1000);
    expect(r.data.result[999]).toEqual({ g: 1000 });
  });

  it('stops a statement at the timeout, also when the statement tries to lift it', async () => {
    const id = await createDb(alice.key, 'slow');
    for (const q of ['select pg_sleep(5)', "select set_config('statement_timeout', '0', false), pg_sleep(5)", "do $$ begin perform set_config('statement_timeout', '0', true); perform pg_sleep(5); end $$"]) {
      const started = Date.now();
      const r = await query(alice.key, id, q);
      expect(r.status).toBe(200);
      expect(r.data.result).toBeNull();
      expect(r.data.error).toMatch(/statement timeout.*57014.*at most 0.7 s/);
      expect(Date.now() - started).toBeLessThan(3000);
    }
    // A session-wide SET by an earlier statement does not outlive it.
    await query(alice.key, id, 'set statement_timeout = 0');
    expect((await query(alice.key, id, 'select pg_sleep(3)')).data.error).toMatch(/statement timeout/);
  });

  it("keeps users out of each other's databases and of the rest of the server", async () => {
    const a = await createDb(alice.key, 'private');
    const b = await createDb(bob.key, 'mine');
    await query(alice.key, a, 'create table secrets (v text)');
    await query(alice.key, a, "insert into secrets values ('alice only')");
    const other = roleName(a);
    const bob_ = (q: string) => query(bob.key, b, q).then((r) => r.data as { result: unknown; error: string | null });

    expect((await bob_('select current_user as u, session_user as s')).result).toEqual([{ u: roleName(b), s: roleName(b) }]);
    expect((await bob_(`select * from "${other}".secrets`)).error).toMatch(/permission denied for schema/);
    expect((await bob_(`drop schema "${other}" cascade`)).error).toMatch(/must be owner/);
    expect((await bob_(`set role "${other}"`)).error).toMatch(/permission denied to set role/);
    expect((await bob_(`select set_config('role', '${other}', false)`)).error).toMatch(/permission denied to set role/);
    expect((await bob_('set role postgres')).error).toMatch(/permission denied to set role/);
    expect((await bob_('set session authorization postgres')).error).toMatch(/permission denied/);
    expect((await bob_(`alter role "${other}" password 'x'`)).error).toMatch(/permission denied/);
    expect((await bob_(`select * from public.${probeTable}`)).error).toMatch(/permission denied for table/);
    expect((await bob_(`create table public.intruder (x int)`)).error).toMatch(/permission denied for schema public/);
    expect((await bob_('create schema elsewhere')).error).toMatch(/permission denied/);
    expect((await bob_('create table pg_catalog.intruder (x int)')).error).toMatch(/permission denied/);
    expect((await bob_("update pg_catalog.pg_class set relname = 'x' where false")).error).toMatch(/permission denied/);
    expect((await bob_("select pg_read_file('/etc/passwd')")).error).toMatch(/permission denied/);
    expect((await bob_("copy (select 1) to program 'true'")).error).toMatch(/permission denied|must be superuser|pg_execute_server_program/);
    // Bob's own schema works, and alice's data is still there.
    expect((await bob_('create table secrets (v text)')).error).toBeNull();
    expect((await bob_('select * from secrets')).result).toEqual([]);
    expect((await query(alice.key, a, 'select v from secrets')).data.result).toEqual([{ v: 'alice only' }]);
  });

  it('deletes a database with its schema and role', async () => {
    const id = await createDb(alice.key, 'doomed');
    await query(alice.key, id, 'create table t (x int)');
    expect((await s.call('DELETE', `/databases/${id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('DELETE', `/databases/${id}`, { key: alice.key })).status).toBe(204);
    expect((await s.call('GET', `/databases/${id}`, { key: alice.key })).status).toBe(404);
    expect((await query(alice.key, id, 'select 1')).status).toBe(404);
    const role = roleName(id);
    expect((await admin!.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [role])).rowCount).toBe(0);
    expect((await admin!.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount).toBe(0);
    expect((await s.call('DELETE', `/databases/${id}`, { key: alice.key })).status).toBe(404);
  });

  it("serves db() to the token owner's JavaScript actions", async () => {
    const id = await createDb(alice.key, 'jsdb');
    await query(alice.key, id, 'create table users (name text, email text)');
    const t = await s.token({ actions: true }, alice.key);
    const script = `
      const mydb = await db(${JSON.stringify(id)});
      const ins = await mydb('insert into users (name, email) values (?, ?)', [get('request.query.name'), get('request.query.email')]);
      const sel = await (await db('jsdb'))('select name, email from users where email = :email', { email: get('request.query.email') });
      const bad = await mydb('select * from nonexisting');
      respond(JSON.stringify({ ins, sel, bad: bad.error, badResult: bad.result }), 200, ['Content-Type: application/json']);`;
    const add = await s.call('POST', `/token/${t.uuid}/actions`, { key: alice.key, json: { type: 'javascript', parameters: { script } } });
    expect(add.status, add.text).toBeLessThan(300);
    const r = await s.call('GET', `/${t.uuid}?name=Ann&email=ann@example.com`);
    expect(r.status, r.text).toBe(200);
    expect(r.data.ins).toMatchObject({ result: [], error: null, rows: 1 });
    expect(r.data.sel).toMatchObject({ result: [{ name: 'Ann', email: 'ann@example.com' }], error: null, rows: 1 });
    expect(typeof r.data.sel.time).toBe('number');
    expect(r.data.bad).toMatch(/does not exist/);
    expect(r.data.badResult).toBeNull();
    expect((await query(alice.key, id, 'select count(*)::int as n from users')).data.result).toEqual([{ n: 1 }]);
  });

  it("refuses db() on another user's database and on tokens without an owner", async () => {
    const id = await createDb(alice.key, 'not-bobs');
    const run = async (key: string | undefined) => {
      const t = await s.token({ actions: true }, key);
      await s.call('POST', `/token/${t.uuid}/actions`, { key, json: { type: 'javascript', parameters: { script: `await (await db(${JSON.stringify(id)}))('select 1')` } } });
      await s.call('GET', `/${t.uuid}`);
      return (await s.call('GET', `/token/${t.uuid}/request/latest`, { key })).data.custom_action_errors as unknown[];
    };
    expect(JSON.stringify(await run(bob.key))).toContain(`Database \\"${id}\\" not found`);
    expect(JSON.stringify(await run(undefined))).toContain('this URL has no owner');
  });
});

describe('databases when DATABASES_POSTGRES_URL is not set', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer();
  });
  afterAll(async () => {
    await off?.close();
  });

  it('answers a JSON 403 on the API and rejects db() with the same message', async () => {
    const u = await off.user(true);
    for (const [method, path] of [
      ['GET', '/databases'],
      ['POST', '/databases'],
      ['GET', '/databases/00000000-0000-4000-8000-000000000000'],
      ['POST', '/databases/00000000-0000-4000-8000-000000000000/query'],
    ] as const) {
      const r = await off.call(method, path, { key: u.key, json: method === 'POST' ? { name: 'x', query: 'select 1' } : undefined });
      expect(r.status, path).toBe(403);
      expect(r.data.message).toMatch(/Databases are not configured on this server.*DATABASES_POSTGRES_URL/);
    }
    expect((await off.call('GET', '/databases')).status).toBe(401);
    const t = await off.token({ actions: true }, u.key);
    await off.call('POST', `/token/${t.uuid}/actions`, { key: u.key, json: { type: 'javascript', parameters: { script: "await (await db('x'))('select 1')" } } });
    await off.call('GET', `/${t.uuid}`);
    const errors = (await off.call('GET', `/token/${t.uuid}/request/latest`, { key: u.key })).data.custom_action_errors;
    expect(JSON.stringify(errors)).toContain('Databases are not configured on this server');
  });
});
