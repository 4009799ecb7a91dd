// DatabaseService without a PostgreSQL server: names, the unconfigured and unreachable answers.
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../store/sqlite/index.js';
import { DatabaseService, DatabasesNotConfigured, DatabasesUnavailable, NOT_CONFIGURED, roleName } from './service.js';

const store = createSqliteStore(':memory:');
const quiet = { warn() {}, error() {} };
const clock = { now: () => 1_700_000_000_000 };
afterAll(() => store.close());

describe('DatabaseService', () => {
  it('names schemas and roles from the UUID only', () => {
    expect(roleName('5C1E0D2A-1111-4222-8333-444455556666')).toBe('whdb_5c1e0d2a111142228333444455556666');
    for (const bad of ['x', 'shop"; drop role postgres; --', '5c1e0d2a-1111-4222-8333-44445555666', '']) expect(() => roleName(bad)).toThrow(/Not a database id/);
  });

  it('answers "not configured" everywhere when DATABASES_POSTGRES_URL is unset', async () => {
    const svc = new DatabaseService(store, clock, { secretKey: 'k'.repeat(32), statementTimeoutMs: 1000, logger: quiet });
    expect(svc.configured).toBe(false);
    await expect(svc.create(1, { name: 'x' })).rejects.toBeInstanceOf(DatabasesNotConfigured);
    await expect(svc.list(1, { page: 1, perPage: 10 })).rejects.toMatchObject({ status: 403, message: NOT_CONFIGURED });
    await expect(svc.forAccount(1).query('x', 'select 1')).rejects.toThrow(NOT_CONFIGURED);
    await expect(svc.forAccount(null).query('x', 'select 1')).rejects.toThrow(NOT_CONFIGURED);
  });

  it('rejects account-less and unknown databases, and answers 503 when the server is down', async () => {
    const svc = new DatabaseService(store, clock, { url: 'postgres://postgres@127.0.0.1:1/test', secretKey: 'k'.repeat(32), statementTimeoutMs: 1000, logger: quiet });
    await expect(svc.forAccount(null).query('x', 'select 1')).rejects.toThrow(/no owner/);
    await expect(svc.forAccount(7).query('nope', 'select 1')).rejects.toThrow('Database "nope" not found');
    await expect(svc.get(7, 'not-a-uuid')).rejects.toMatchObject({ status: 404 });
    await expect(svc.create(7, { name: '' })).rejects.toMatchObject({ status: 422 });
    await expect(svc.create(7, { name: 'shop' })).rejects.toBeInstanceOf(DatabasesUnavailable);
    expect((await store.databases.list(7, { page: 1, perPage: 10 })).total).toBe(0);
    // A database whose server is gone: its query is a 503, not a result.
    await store.databases.create({ id: '5c1e0d2a-1111-4222-8333-444455556666', user_id: 7, name: 'shop', created_at: 1, updated_at: 1 });
    await expect(svc.forAccount(7).query('shop', 'select 1')).rejects.toMatchObject({ status: 503, message: expect.stringMatching(/cannot be opened/) });
    expect((await svc.list(7, { page: 1, perPage: 10 })).items).toMatchObject([{ name: 'shop', bytes_used: null, tables_used: null }]);
    await svc.close();
  });
});
