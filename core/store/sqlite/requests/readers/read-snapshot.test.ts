// A list's total and page, and a walk step's statements, come from one snapshot: requests deleted
// (or captured) by another connection between two of its statements show in neither.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../../query/index.js';
import { sampleRequest, sampleToken } from '../../../store.contract.js';
import { createSqliteStore } from '../../index.js';
import { planList, planWalk, readList, readWalk } from './request-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'read-snapshot-'));
const file = join(dir, 'capture.sqlite');
let store: ReturnType<typeof createSqliteStore>;

/** A token with `n` POST requests, caught up (token index filled). */
async function tokenWith(n: number): Promise<string> {
  const token = sampleToken();
  await store.tokens.create(token);
  const now = Date.now();
  for (let i = 0; i < n; i++) void store.requests.insert(sampleRequest(token.uuid, { body: Buffer.from(`order ${i}`), sorting: now * 1000 + i }), 10_000);
  await store.writer.sync();
  return token.uuid;
}

/**
 * A read-only connection on the file whose first statement, once run, has the store's connection
 * delete the token's requests: what a capture writer or a deletion committing meanwhile does.
 */
function racingReader(token: string): Database.Database {
  const reader = new Database(file, { readonly: true });
  let raced = false;
  const race = () => {
    if (raced) return;
    raced = true;
    store.db.prepare('DELETE FROM requests WHERE token_id = ?').run(token);
  };
  return new Proxy(reader, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (key !== 'prepare') return typeof value === 'function' ? value.bind(target) : value;
      return (sql: string) => {
        const stmt = target.prepare(sql);
        return new Proxy(stmt, {
          get(s, m) {
            const v = Reflect.get(s, m, s) as unknown;
            if (typeof v !== 'function') return v;
            if (m !== 'get' && m !== 'all') return v.bind(s);
            return (...args: unknown[]) => {
              const result = (v as (...a: unknown[]) => unknown).apply(s, args);
              race();
              return result;
            };
          },
        });
      };
    },
  });
}

beforeAll(() => {
  store = createSqliteStore(file, { writer: 'in-thread' });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reads from one snapshot', () => {
  it("gives a list's total and page as they were when it began, whatever is committed between its statements", async () => {
    const token = await tokenWith(30);
    const reader = racingReader(token);
    const page = readList(reader, planList(token, { sorting: 'newest', page: 1, perPage: 5, query: parseQuery('method:POST AND order') }));
    expect(page.total).toBe(30);
    expect(page.items.map((r) => String(r.body))).toEqual(['order 29', 'order 28', 'order 27', 'order 26', 'order 25']);
    // The deletion did happen, and a list begun after it sees it.
    expect(store.db.prepare('SELECT count(*) FROM requests WHERE token_id = ?').pluck().get(token)).toBe(0);
    expect(readList(reader, planList(token, { sorting: 'newest', page: 1, perPage: 5, query: parseQuery('method:POST') })).items).toEqual([]);
    reader.close();
  });

  it("reads a walk step's rows from the snapshot its first statement saw", async () => {
    const token = await tokenWith(12);
    const reader = racingReader(token);
    const step = readWalk(reader, planWalk(token, { sorting: 'oldest', perPage: 10 }));
    expect(step.items.map((r) => String(r.body))).toEqual(Array.from({ length: 10 }, (_, i) => `order ${i}`));
    expect(step.next).not.toBeNull();
    reader.close();
  });
});
