// The store's optional capabilities (Store.database, Store.observeCaptureCommits,
// Store.observeCatchUps) on SQLite; the scheduler's Agenda backend and the realtime feed are built
// on them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createFeed } from '../realtime/feed.js';
import { agendaBackendFor } from '../scheduler/scheduler.js';
import { SqliteBackend } from '../scheduler/sqlite-backend.js';
import { createSqliteStore } from './sqlite/index.js';
import { sampleRequest, sampleToken } from './store.contract.js';
import type { Store } from './types.js';

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  store = dir = undefined;
});

describe('store capabilities (SQLite)', () => {
  it('exposes its connection typed, and the scheduler and feed are built on it', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caps-'));
    const s = createSqliteStore(path.join(dir, 'capture.sqlite'));
    store = s;
    const native = s.database?.();
    expect(native?.kind).toBe('sqlite');
    expect(native?.kind === 'sqlite' && native.db).toBe(s.db);
    expect(await agendaBackendFor(s)).toBeInstanceOf(SqliteBackend);
    const feed = await createFeed(s, silentLogger);
    expect(feed.kind).toBe('sqlite-poll');
  });

  it('has no feed for an in-memory database', async () => {
    store = createSqliteStore(':memory:');
    expect((await createFeed(store, silentLogger)).kind).toBe('none');
  });

  it('reports each group commit of captures to the observer', async () => {
    const s = createSqliteStore(':memory:');
    store = s;
    const commits: number[] = [];
    s.observeCaptureCommits?.((captures) => commits.push(captures));
    expect(s.writer.onCommit).not.toBeNull();
    s.writer.onCommit!(3, 0.001);
    expect(commits).toEqual([3]);
  });

  for (const writer of ['in-thread', 'worker'] as const) {
    it(`reports each catch-up of stored captures to the observer (${writer} writer): every row once, with its time`, async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caps-'));
      const s = createSqliteStore(path.join(dir, 'capture.sqlite'), { writer });
      store = s;
      const catchUps: Array<{ rows: number; seconds: number }> = [];
      s.observeCatchUps?.((rows, seconds) => catchUps.push({ rows, seconds }));
      const token = sampleToken({ request_limit: 3 });
      await s.tokens.create(token);
      await Promise.all(Array.from({ length: 5 }, (_, i) => s.requests.insert(sampleRequest(token.uuid, { uuid: `00000000-0000-4000-8000-00000000000${i}` }), 3)));
      // A read catches up first: the five are indexed and counted, and trimmed to the limit.
      expect((await s.requests.list(token.uuid, { sorting: 'newest', page: 1, perPage: 10 })).total).toBe(3);
      expect(catchUps.reduce((n, c) => n + c.rows, 0)).toBe(5);
      for (const c of catchUps) expect(c.seconds).toBeGreaterThanOrEqual(0);
    });
  }
});
