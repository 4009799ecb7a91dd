// Bulk deletions give way to captures (the bench's readstall section): the capture writers count their
// commits in shared memory, the deleting thread looks between its chunks and pauses longer while
// they come. Here: the count (a real batch writer on a file, and across a thread), and the pauses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleRequest, sampleToken } from '../../store.contract.js';
import { toRow } from './columns.js';
import { createBatchWriter } from './writer/batch-writer.js';
import { captureActivity, commitWatch, giveWay, LOOP_SAMPLE_MS, loopBusy, noteCommit, watchLoop } from './capture-activity.js';
import { DELETE_SHARE_WHILE_BUSY, DELETE_SHARE_WHILE_CAPTURING, pauseAfter } from './readers/chunks.js';
import { migrate } from '../migrations.js';
import { sqliteTokens } from '../repos/tokens.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-activity-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('capture activity', () => {
  it('tells a watcher whether commits came since it last looked', () => {
    const activity = captureActivity();
    const capturing = commitWatch(activity);
    expect(capturing()).toBe(false);
    noteCommit(activity);
    noteCommit(activity);
    expect(capturing()).toBe(true);
    expect(capturing()).toBe(false);
    // Without a counter (a store that passes none), nothing is ever flowing.
    expect(commitWatch(undefined)()).toBe(false);
  });

  it('is shared with a thread, not copied', async () => {
    const activity = captureActivity();
    const capturing = commitWatch(activity);
    const worker = new Worker('const { workerData } = require("node:worker_threads"); Atomics.add(workerData, 0, 5);', { eval: true, workerData: activity });
    await new Promise((resolve) => worker.once('exit', resolve));
    expect(Atomics.load(activity, 0)).toBe(5);
    expect(capturing()).toBe(true);
  });

  it('counts each batch the writer committed, not one that found the write lock taken', async () => {
    const file = path.join(dir, 'count.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    const token = sampleToken();
    await sqliteTokens(db).create(token);
    const activity = captureActivity();
    const writer = createBatchWriter(db, { activity });
    const capturing = commitWatch(activity);
    const item = () => ({ row: toRow(sampleRequest(token.uuid)), limit: 100 });
    expect(writer.commit([item(), item()]).every((o) => o === null)).toBe(true);
    expect(capturing()).toBe(true);

    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const t0 = performance.now();
    // The event loop's writer does not wait: nothing stored, nothing counted.
    expect(writer.commit([item()], false)).toEqual([]);
    // At once, the first time too: not after busy_timeout (5 s) in SQLite's busy handler.
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(capturing()).toBe(false);
    other.exec('COMMIT');
    other.close();
    expect(writer.commit([item()], false)).toEqual([null]);
    expect(capturing()).toBe(true);
    db.close();
  });
});

describe('the event loop, watched', () => {
  it('is saturated while it spins and not once it idles', async () => {
    const activity = captureActivity();
    const stop = watchLoop(activity);
    try {
      expect(loopBusy(activity)).toBe(false);
      // Busy: 5 ms of work, then a turn of the loop for the sampling timer, for three samples.
      const until = performance.now() + 3 * LOOP_SAMPLE_MS;
      while (performance.now() < until) {
        const t = performance.now() + 5;
        while (performance.now() < t);
        await new Promise((r) => setImmediate(r));
      }
      expect(loopBusy(activity)).toBe(true);
      await new Promise((r) => setTimeout(r, 3 * LOOP_SAMPLE_MS));
      expect(loopBusy(activity)).toBe(false);
    } finally {
      stop();
    }
    expect(loopBusy(undefined)).toBe(false);
  });

  it('gives a reader a tenth of the time: after 30 ms of work, 270 ms of pause', () => {
    expect(giveWay(30, 0.1)).toBeCloseTo(270, 6);
  });
});

describe('a deletion pauses between its chunks', () => {
  it('for about twice its chunk with no captures coming, and keeps to its share of the time while they do', () => {
    expect(pauseAfter(4)).toBe(10);
    expect(pauseAfter(0)).toBe(4);
    const held = 4;
    const capturing = { capturing: true, busy: false };
    const pause = pauseAfter(held, capturing);
    expect(held / (held + pause)).toBeCloseTo(DELETE_SHARE_WHILE_CAPTURING, 5);
    expect(pauseAfter(0, capturing)).toBe(4);
  });

  it('keeps to a smaller share while the captures saturate the event loop', () => {
    const busy = pauseAfter(4, { capturing: true, busy: true });
    expect(4 / (4 + busy)).toBeCloseTo(DELETE_SHARE_WHILE_BUSY, 5);
    expect(DELETE_SHARE_WHILE_BUSY).toBeLessThan(DELETE_SHARE_WHILE_CAPTURING);
    // Busy without a commit seen since the last pause (a saturated loop is the captures'): the same.
    expect(pauseAfter(4, { capturing: false, busy: true })).toBe(busy);
  });
});
