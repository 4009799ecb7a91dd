// How the store tells a full disk: which failures mean it, and when writes count as going through
// again. The probe writes for real, on a small tmpfs filled up (skipped, saying so, where this
// process may not mount one); the clock of the probe's interval is moved by the test.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsufficientStorage } from '../errors.js';
import { canMountTmpfs, mountTmpfs, NO_TMPFS, type Tmpfs } from '../../test/helpers/tmpfs.js';
import { createSpaceWatch, PROBE_EVERY_MS } from './space.js';

const full = { code: 'SQLITE_FULL', message: 'database or disk is full' };
const ioError = { code: 'SQLITE_IOERR_WRITE', message: 'disk I/O error' };

describe('a write failure', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(path.join(os.tmpdir(), 'space-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLITE_FULL, ENOSPC and EDQUOT become InsufficientStorage (507), and writes count as refused until a probe goes through', async () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT']) {
      let now = 1_000_000;
      const told: Array<string | null> = [];
      const watch = createSpaceWatch([dir], () => now);
      watch.onChange = (r) => told.push(r);
      const err = await watch.failed(Object.assign(new Error('no room'), { code }));
      expect(err).toBeInstanceOf(InsufficientStorage);
      expect((err as InsufficientStorage).status).toBe(507);
      expect(await watch.refused()).toBe(`no storage space left (${code}); ready again once space is freed`);
      await watch.failed(Object.assign(new Error('no room'), { code }));
      // A capture committed: no probe yet (the failure counted as one), so still refused.
      watch.succeeded();
      expect(await watch.refused()).not.toBeNull();
      // One commit later, a probe is due: it goes through.
      now += PROBE_EVERY_MS;
      watch.succeeded();
      expect(await watch.refused()).toBeNull();
      // Said once each way.
      expect(told).toEqual([expect.stringContaining(code), null]);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('any other error is given back as it was, and writes are not refused', async () => {
    const watch = createSpaceWatch([dir]);
    for (const e of [{ code: 'SQLITE_CONSTRAINT_UNIQUE' }, { code: 'EACCES' }, new Error('boom'), null]) expect(await watch.failed(e)).toBe(e);
    expect(await watch.refused()).toBeNull();
  });

  it('an I/O error with room left on the disk is given back as it was (the probe went through)', async () => {
    const watch = createSpaceWatch([dir]);
    expect(await watch.failed(ioError)).toBe(ioError);
    expect(await watch.refused()).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
  });
});

const mountable = canMountTmpfs();

describe.skipIf(!mountable)(mountable ? 'on a full disk' : `on a full disk: ${NO_TMPFS}`, () => {
  let tmpfs: Tmpfs;
  beforeAll(() => void (tmpfs = mountTmpfs(1024 * 1024)!));
  afterAll(() => tmpfs?.unmount());

  it('an I/O error counts as lack of space when a probe write finds none either', async () => {
    tmpfs.fill();
    try {
      const watch = createSpaceWatch([tmpfs.dir]);
      expect(await watch.failed(ioError)).toBeInstanceOf(InsufficientStorage);
      expect(await watch.refused()).toBe('no storage space left (SQLITE_IOERR_WRITE); ready again once space is freed');
    } finally {
      tmpfs.free();
    }
  });

  it('while writes are refused, /readyz probes at most every PROBE_EVERY_MS, and sees space freed at the next probe', async () => {
    let now = 1_000_000;
    const watch = createSpaceWatch([tmpfs.dir], () => now);
    tmpfs.fill();
    expect(await watch.failed(full)).toBeInstanceOf(InsufficientStorage);
    // The failed write counts as a probe: none yet, whatever the disk holds.
    tmpfs.free();
    now += PROBE_EVERY_MS - 1;
    expect(await watch.refused()).not.toBeNull();
    now += 1;
    expect(await watch.refused()).toBeNull();
    // The probe left nothing behind.
    expect(readdirSync(tmpfs.dir)).toEqual([]);
  });

  it('a probe that finds the disk still full keeps writes refused, and waits PROBE_EVERY_MS for the next', async () => {
    let now = 1_000_000;
    const watch = createSpaceWatch([tmpfs.dir], () => now);
    tmpfs.fill();
    try {
      await watch.failed(full);
      now += PROBE_EVERY_MS;
      expect(await watch.refused()).not.toBeNull();
    } finally {
      tmpfs.free();
    }
    now += PROBE_EVERY_MS - 1;
    expect(await watch.refused()).not.toBeNull();
    now += 1;
    expect(await watch.refused()).toBeNull();
    expect(readdirSync(tmpfs.dir)).toEqual([]);
  });
});
