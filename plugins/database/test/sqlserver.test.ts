// SQL Server (tedious). No SQL Server runs here, so these cover what can be checked without one:
// the parameters, the placeholder style, and the connection going to the approved address.
import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import type { Network } from '@capture/sdk';
import { database } from '../src/database.js';
import { bindParameters } from '../src/placeholders.js';

const base = { type: 'sqlsrv', host: 'sql.capture.invalid', database: 'app', username: 'sa', password: 'Secret-123', statement: 'SELECT 1' };

describe('database on SQL Server', () => {
  it('accepts sqlsrv (and mssql) with the documented parameters', () => {
    expect(validateParams(database, { ...base, port: 1433, params: [{ name: ':id', value: '1' }], variable_name: 'out' })).toMatchObject({ type: 'sqlsrv' });
    expect(() => validateParams(database, { ...base, type: 'mssql' })).not.toThrow();
  });

  it('writes parameters as @p1, @p2 and leaves [bracketed] names alone', () => {
    expect(bindParameters('SELECT [a?b], [c:d] FROM t WHERE id = :id AND owner = :owner OR parent = :id', 'sqlsrv', { id: 5, owner: 'x' })).toEqual({
      sql: 'SELECT [a?b], [c:d] FROM t WHERE id = @p1 AND owner = @p2 OR parent = @p1',
      values: [5, 'x'],
      style: 'named',
    });
  });

  it('connects to the address the policy returned and reports a closed port clearly', async () => {
    const asked: string[] = [];
    const net: Network = {
      resolve: async (host) => {
        asked.push(host);
        return { address: '127.0.0.1', family: 4 };
      },
    };
    const r = await runAction(database, { ...base, port: 1, variable_name: 'v' }, { services: { net } });
    expect(asked).toEqual(['sql.capture.invalid']);
    expect(r.vars['v.error']).toMatch(/^Failed to connect to sql\.capture\.invalid:1 - connect ECONNREFUSED 127\.0\.0\.1:1$/);
    expect(r.errors).toEqual([`Query on sql.capture.invalid:1 failed: ${r.vars['v.error']}`]);
  });

  it('a refused address is reported without connecting', async () => {
    const net: Network = {
      resolve: async () => {
        throw new Error('sql.capture.invalid resolves to 169.254.169.254, which the outbound policy does not allow');
      },
    };
    const r = await runAction(database, { ...base, variable_name: 'v' }, { services: { net } });
    expect(r.vars['v.error']).toMatch(/outbound policy does not allow/);
  });
});
