// The PostgreSQL server of this machine for the Databases tests (DATABASES_TEST_URL, default
// postgres://postgres@127.0.0.1:5432/test): an administrator connection that fails at once, clearly,
// when the server is down, and the clean-up of the hosted databases a test created.
import pg from 'pg';
import { expect } from 'vitest';
import { roleName } from '../../core/databases/service.js';
import type { TestServer } from './server.js';

export const DATABASES_TEST_URL = process.env.DATABASES_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A connection as the server's administrator; throws naming the URL when the server is not reachable. */
export async function connectPostgresAdmin(url = DATABASES_TEST_URL): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is not reachable at ${url} (${(err as Error).message}); these tests need the real server`);
  }
  return client;
}

/** Drops the schema and role of each database (whatever a failed test left behind). */
export async function dropHostedDatabases(admin: pg.Client, ids: Iterable<string>): Promise<void> {
  for (const id of ids) {
    const role = roleName(id);
    await admin.query(`DROP SCHEMA IF EXISTS "${role}" CASCADE`);
    if ((await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount) await admin.query(`DROP OWNED BY "${role}" CASCADE; DROP ROLE "${role}"`);
  }
}

/** Creates a hosted database through the API (a 201, or the test fails with the answer) and adds its ID to `created`. */
export async function createHostedDatabase(s: TestServer, key: string, body: Record<string, unknown>, created: string[]): Promise<string> {
  const r = await s.call('POST', '/databases', { key, json: body });
  expect(r.status, r.text).toBe(201);
  created.push(r.data.id);
  return r.data.id as string;
}
