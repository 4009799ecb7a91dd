// The Database Manager API end to end, against the PostgreSQL server of this machine
// (DATABASES_TEST_URL, default postgres://postgres@127.0.0.1:5432/test): tables with their columns,
// create/rename/drop, column changes and the primary key, rows browsed, added, edited and deleted,
// bad input as 4xx JSON, and one user kept out of another's database.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgresAdmin, createHostedDatabase, DATABASES_TEST_URL, dropHostedDatabases } from '../../../test/helpers/postgres.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let admin: pg.Client | undefined;
let s: TestServer;
let alice: { id: number; key: string };
let bob: { id: number; key: string };
const created: string[] = [];

beforeAll(async () => {
  admin = await connectPostgresAdmin();
  s = await startTestServer({ DATABASES_POSTGRES_URL: DATABASES_TEST_URL, DATABASES_STATEMENT_TIMEOUT_MS: '2000' });
  alice = await s.user(true);
  bob = await s.user(false);
});

afterAll(async () => {
  await s?.close();
  if (!admin) return;
  await dropHostedDatabases(admin, created);
  await admin.end();
});

const createDb = (key: string, name: string) => createHostedDatabase(s, key, { name }, created);

const api = (method: string, path: string, json?: unknown, key = alice.key) => s.call(method, path, { key, json });

describe('Database Manager API (PostgreSQL)', () => {
  let db: string;
  const T = () => `/databases/${db}/tables`;
  beforeAll(async () => {
    db = await createDb(alice.key, 'manager');
  });

  it('creates a table and lists it with its columns, key and row estimate', async () => {
    const made = await api('POST', T(), {
      name: 'Orders',
      columns: [
        { name: 'id', type: 'serial', primary_key: true },
        { name: 'customer', type: 'varchar(40)', nullable: false },
        { name: 'total', type: 'numeric(10,2)', default: '0' },
        { name: 'placed', type: 'timestamptz', default_expression: 'now()' },
        { name: 'tags', type: 'text[]' },
      ],
    });
    expect(made.status, made.text).toBe(201);
    expect(made.data).toMatchObject({
      name: 'Orders',
      primary_key: ['id'],
      rows_estimate: 0,
      columns: [
        { name: 'id', type: 'integer', nullable: false, primary_key: true, default: expect.stringMatching(/^nextval\(/) },
        { name: 'customer', type: 'character varying(40)', nullable: false, default: null, primary_key: false },
        { name: 'total', type: 'numeric(10,2)', nullable: true, default: "'0'::numeric" },
        { name: 'placed', type: 'timestamp with time zone', default: 'now()' },
        { name: 'tags', type: 'text[]' },
      ],
    });
    const list = await api('GET', T());
    expect(list.status).toBe(200);
    expect(list.data.data.map((t: { name: string }) => t.name)).toEqual(['Orders']);
    expect(list.data.column_types).toContain('jsonb');
    expect((await api('GET', `${T()}/Orders`)).data.columns).toHaveLength(5);
    expect((await api('GET', `${T()}/nope`)).status).toBe(404);
  });

  it('adds, edits, browses and deletes rows by primary key with values bound as parameters', async () => {
    const evil = 'Robert\'); drop table "Orders"; --';
    const a = await api('POST', `${T()}/Orders/rows`, { values: { customer: evil, total: 12.5, tags: ['a', 'b'] } });
    expect(a.status, a.text).toBe(201);
    expect(a.data.row).toMatchObject({ id: 1, customer: evil, total: '12.50', tags: ['a', 'b'] });
    for (const c of ['ann', 'bob', 'cid']) expect((await api('POST', `${T()}/Orders/rows`, { values: { customer: c } })).status).toBe(201);

    const edited = await api('PUT', `${T()}/Orders/rows`, { key: { id: 2 }, values: { total: '99.99' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.data.row).toMatchObject({ id: 2, customer: 'ann', total: '99.99' });

    const page = await api('GET', `${T()}/Orders/rows?sort=total&order=desc&per_page=2`);
    expect(page.status, page.text).toBe(200);
    expect(page.data).toMatchObject({ total: 4, per_page: 2, last_page: 2, primary_key: ['id'] });
    expect(page.data.data.map((r: { id: number }) => r.id)).toEqual([2, 1]);
    const second = await api('GET', `${T()}/Orders/rows?sort=total&order=desc&per_page=2&page=2`);
    expect(second.data.data.map((r: { id: number }) => r.id)).toEqual([4, 3]); // equal totals: the key breaks the tie, in the same order
    const filtered = await api('GET', `${T()}/Orders/rows?filter_column=customer&filter_value=bob`);
    expect(filtered.data.data).toMatchObject([{ id: 3, customer: 'bob' }]);

    const gone = await api('POST', `${T()}/Orders/rows/delete`, { keys: [{ id: 3 }, { id: 4 }, { id: 40 }] });
    expect(gone.data).toEqual({ deleted: 2 });
    expect((await api('GET', `${T()}/Orders/rows`)).data.total).toBe(2);
    // Small tables are counted, so the list is right at once (statistics lag behind).
    expect((await api('GET', T())).data.data[0]).toMatchObject({ name: 'Orders', rows_estimate: 2 });
    expect((await api('PUT', `${T()}/Orders/rows`, { key: { id: 40 }, values: { total: 1 } })).status).toBe(404);
  });

  it('changes the structure: columns added, renamed, retyped, made required, defaulted, dropped; the key; the table renamed and dropped', async () => {
    const P = `${T()}/Orders`;
    const added = await api('POST', `${P}/columns`, { name: 'qty', type: 'text', default: '1' });
    expect(added.status, added.text).toBe(201);
    expect(added.data.columns.at(-1)).toMatchObject({ name: 'qty', type: 'text', default: "'1'::text" });
    const retyped = await api('PUT', `${P}/columns/qty`, { name: 'quantity', type: 'integer', nullable: false, default: '1' });
    expect(retyped.status, retyped.text).toBe(200);
    expect(retyped.data.columns.at(-1)).toMatchObject({ name: 'quantity', type: 'integer', nullable: false, default: '1' });
    const undefaulted = await api('PUT', `${P}/columns/quantity`, { default: null });
    expect(undefaulted.data.columns.at(-1).default).toBeNull();
    const rows = await api('GET', `${P}/rows`);
    expect(rows.data.data[0]).toMatchObject({ quantity: 1 });

    const keyed = await api('PUT', `${P}/primary-key`, { columns: ['customer', 'id'] });
    expect(keyed.status, keyed.text).toBe(200);
    expect(keyed.data.primary_key).toEqual(['customer', 'id']);
    const edited = await api('PUT', `${P}/rows`, { key: { customer: 'ann', id: 2 }, values: { quantity: 5 } });
    expect(edited.data.row).toMatchObject({ quantity: 5 });

    const dropped = await api('DELETE', `${P}/columns/tags`);
    expect(dropped.status).toBe(200);
    expect(dropped.data.columns.map((c: { name: string }) => c.name)).not.toContain('tags');

    const renamed = await api('PUT', P, { name: 'purchases' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.data.name).toBe('purchases');
    expect((await api('GET', P)).status).toBe(404);

    // Without a primary key the rows are browsed, not edited.
    const unkeyed = await api('PUT', `${T()}/purchases/primary-key`, { columns: [] });
    expect(unkeyed.data.primary_key).toEqual([]);
    const browse = await api('GET', `${T()}/purchases/rows`);
    expect(browse.data).toMatchObject({ total: 2, primary_key: [] });
    const refused = await api('PUT', `${T()}/purchases/rows`, { key: { id: 2 }, values: { quantity: 6 } });
    expect(refused.status).toBe(422);
    expect(refused.data.message).toMatch(/no primary key/);

    expect((await api('DELETE', `${T()}/purchases`)).status).toBe(204);
    expect((await api('GET', T())).data.data).toEqual([]);
  });

  it('answers bad input with a clear 4xx JSON error, never a 5xx', async () => {
    const bad = async (method: string, path: string, json: unknown, status: number, match: RegExp) => {
      const r = await api(method, path, json);
      expect(r.status, `${method} ${path} ${JSON.stringify(json)}: ${r.text}`).toBe(status);
      expect(JSON.stringify(r.data)).toMatch(match);
      return r;
    };
    const unknownType = await bad('POST', T(), { name: 't', columns: [{ name: 'a', type: 'int; drop table x' }] }, 422, /not a supported type/);
    expect(unknownType.data.errors['columns.0.type']).toBeDefined();
    await bad('POST', T(), { name: 't', columns: [{ name: 'a', type: 'money' }] }, 422, /not a supported type/);
    const dup = await bad(
      'POST',
      T(),
      {
        name: 't',
        columns: [
          { name: 'a', type: 'text' },
          { name: 'a', type: 'int' },
        ],
      },
      422,
      /duplicates the column/,
    );
    expect(dup.data.errors['columns.1.name']).toBeDefined();
    await bad('POST', T(), { name: 'x'.repeat(64), columns: [{ name: 'a', type: 'text' }] }, 422, /at most 63 bytes/);
    await bad('POST', T(), { name: 't', columns: [] }, 422, /at least one column/);
    await bad('POST', T(), { name: 't', columns: [{ name: 'a', type: 'varchar(0)' }] }, 422, /length from 1/);
    await bad('POST', T(), { name: 't', columns: [{ name: 'n', type: 'integer', default: 'abc' }] }, 422, /invalid input syntax for type integer/);
    await bad('POST', T(), { name: 't', columns: [{ name: 'a', type: 'text', default: 'x', default_expression: 'now()' }] }, 422, /not both/);

    expect(
      (
        await api('POST', T(), {
          name: 'items',
          columns: [
            { name: 'id', type: 'int', primary_key: true },
            { name: 'label', type: 'text' },
          ],
        })
      ).status,
    ).toBe(201);
    await bad('POST', T(), { name: 'items', columns: [{ name: 'a', type: 'text' }] }, 409, /already exists/);
    await bad('POST', `${T()}/items/columns`, { name: 'label', type: 'text' }, 409, /already exists/);
    await bad('PUT', `${T()}/items/columns/label`, { type: 'serial' }, 422, /only possible for a new column/);
    await bad('PUT', `${T()}/items/columns/label`, {}, 422, /Nothing to change/);
    await bad('PUT', `${T()}/items/columns/nope`, { nullable: false }, 404, /no column/);
    await bad('PUT', `${T()}/items/primary-key`, { columns: ['nope'] }, 422, /unknown column/);

    await api('POST', `${T()}/items/rows`, { values: { id: 1, label: 'one' } });
    await api('POST', `${T()}/items/rows`, { values: { id: 2 } });
    const cast = await bad('PUT', `${T()}/items/columns/label`, { type: 'integer' }, 422, /invalid input syntax for type integer/);
    expect(cast.data.errors.type).toBeDefined();
    await bad('PUT', `${T()}/items/columns/label`, { nullable: false }, 422, /contains null values/);
    await bad('POST', `${T()}/items/rows`, { values: { id: 1 } }, 409, /duplicate key/);
    await bad('POST', `${T()}/items/rows`, { values: { id: 'x' } }, 422, /invalid input syntax/);
    await bad('POST', `${T()}/items/rows`, { values: { nope: 1 } }, 422, /no column .*nope/);
    await bad('PUT', `${T()}/items/rows`, { key: { label: 'one' }, values: { label: 'z' } }, 422, /primary key \(id\)/);
    await bad('POST', `${T()}/items/rows/delete`, { keys: [] }, 422, /at least one row/);
    await bad('GET', `${T()}/items/rows?sort=nope`, undefined, 422, /no column .*nope/);
    await bad('GET', `${T()}/items/rows?filter_column=id&filter_value=abc`, undefined, 422, /invalid input syntax/);
    await bad('GET', `${T()}/items/rows?filter_column=id`, undefined, 422, /go together/);
    await bad('GET', `${T()}/items/rows?per_page=500`, undefined, 422, /at most 100/);
    await bad('GET', `${T()}/items/rows?order=sideways`, undefined, 422, /order/);
    await bad('DELETE', `${T()}/nope`, undefined, 404, /not found/);
    await bad('PUT', `${T()}/items/columns/id`, { default: '1' }, 200, /"name":"items"/);
    await bad('PUT', `${T()}/items/columns/id`, { type: 'date' }, 422, /cannot cast type integer to date/);
    // The table and its rows are as they were after all of that.
    const items = await api('GET', `${T()}/items/rows`);
    expect(items.data.data).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: null },
    ]);
  });

  it('keeps names with quotes and odd characters as they are, and catalog names apart', async () => {
    const odd = 'we"ird; drop table items --';
    const made = await api('POST', T(), { name: odd, columns: [{ name: 'a "b"', type: 'text', primary_key: true }] });
    expect(made.status, made.text).toBe(201);
    expect(made.data.columns[0].name).toBe('a "b"');
    expect((await api('POST', `${T()}/${encodeURIComponent(odd)}/rows`, { values: { 'a "b"': 'v' } })).data.row).toEqual({ 'a "b"': 'v' });
    // A table named like a catalog table is the user's own, not pg_catalog's.
    expect((await api('POST', T(), { name: 'pg_class', columns: [{ name: 'x', type: 'int' }] })).status).toBe(201);
    expect((await api('GET', `${T()}/pg_class/rows`)).data).toMatchObject({ total: 0, data: [] });
    expect((await api('GET', `${T()}/items/rows`)).data.total).toBe(2);
  });

  it('browses a table without a key in a stable order, filtering a json column by its text', async () => {
    expect(
      (
        await api('POST', T(), {
          name: 'events',
          columns: [
            { name: 'kind', type: 'text' },
            { name: 'payload', type: 'json' },
          ],
        })
      ).status,
    ).toBe(201);
    for (const [kind, payload] of [
      ['b', { a: 1 }],
      ['a', { a: 2 }],
      ['b', { a: 3 }],
    ] as const)
      expect((await api('POST', `${T()}/events/rows`, { values: { kind, payload } })).status).toBe(201);
    const sorted = await api('GET', `${T()}/events/rows?sort=kind`);
    expect(sorted.data).toMatchObject({ total: 3, primary_key: [] });
    expect(sorted.data.data).toEqual([
      { kind: 'a', payload: { a: 2 } },
      { kind: 'b', payload: { a: 1 } },
      { kind: 'b', payload: { a: 3 } },
    ]);
    const filtered = await api('GET', `${T()}/events/rows?filter_column=payload&filter_value=${encodeURIComponent('{"a":3}')}`);
    expect(filtered.data.data).toEqual([{ kind: 'b', payload: { a: 3 } }]);
    expect((await api('POST', `${T()}/events/rows/delete`, { keys: [{ kind: 'b' }] })).status).toBe(422);
  });

  it("keeps one user out of another's database", async () => {
    const mine = await createDb(bob.key, 'bobs');
    for (const [method, path, json] of [
      ['GET', T()],
      ['POST', T(), { name: 'x', columns: [{ name: 'a', type: 'text' }] }],
      ['GET', `${T()}/items`],
      ['PUT', `${T()}/items`, { name: 'stolen' }],
      ['DELETE', `${T()}/items`],
      ['POST', `${T()}/items/columns`, { name: 'b', type: 'text' }],
      ['PUT', `${T()}/items/columns/label`, { nullable: true }],
      ['DELETE', `${T()}/items/columns/label`],
      ['PUT', `${T()}/items/primary-key`, { columns: [] }],
      ['GET', `${T()}/items/rows`],
      ['POST', `${T()}/items/rows`, { values: { id: 9 } }],
      ['PUT', `${T()}/items/rows`, { key: { id: 1 }, values: { label: 'b' } }],
      ['POST', `${T()}/items/rows/delete`, { keys: [{ id: 1 }] }],
    ] as Array<[string, string, unknown?]>) {
      const r = await api(method, path, json, bob.key);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.data.message).toBe('Database not found');
    }
    expect((await s.call('GET', T())).status).toBe(401);
    // Bob's own database has none of alice's tables.
    expect((await api('GET', `/databases/${mine}/tables`, undefined, bob.key)).data.data).toEqual([]);
    expect((await api('GET', `/databases/${mine}/tables/items/rows`, undefined, bob.key)).status).toBe(404);
    expect((await api('GET', `${T()}/items/rows`)).data.total).toBe(2);
  });

  it("runs the Database action on the owner's hosted database (database_id)", async () => {
    const t = await s.token({ actions: true }, alice.key);
    const add = await s.call('POST', `/token/${t.uuid}/actions`, {
      key: alice.key,
      json: {
        type: 'database',
        parameters: { database_id: 'manager', statement: 'insert into items (id, label) values (:id, :label) returning id', params: { id: '$request.query.id$', label: 'from action' }, variable_name: 'out' },
      },
    });
    expect(add.status, add.text).toBeLessThan(300);
    await s.call('GET', `/${t.uuid}?id=7`);
    const latest = await s.call('GET', `/token/${t.uuid}/request/latest`, { key: alice.key });
    expect(latest.data.custom_action_errors).toEqual([]);
    const rows = await api('GET', `${T()}/items/rows?filter_column=id&filter_value=7`);
    expect(rows.data.data).toEqual([{ id: 7, label: 'from action' }]);
  });
});
