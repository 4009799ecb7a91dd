// The online backup (backup.ts, `npm run cli -- backup`): consistent while captures are written,
// refused over an existing file or for MongoDB, and restorable into a fresh DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../scripts/cli.js';
import { startTestServer } from '../../../test/helpers/server.js';
import { sampleRequest, sampleToken } from '../store.contract.js';
import { backupSqlite, bodiesBackupDir, integrityCheck } from './backup.js';
import { createSqliteStore } from './index.js';

let dir: string;
let out: string[];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-'));
  vi.stubEnv('LOG_LEVEL', 'silent');
  // Vite (under vitest) sets BASE_URL=/ for itself; the service's BASE_URL is unset here.
  vi.stubEnv('BASE_URL', '');
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

const cli = async (...argv: string[]) => {
  out = [];
  return main(argv);
};

describe('SQLite backup', () => {
  it('copies the database as of one instant while captures keep being written, and the copy is whole', async () => {
    const file = path.join(dir, 'live', 'capture.sqlite');
    const store = createSqliteStore(file);
    const t = sampleToken();
    await store.tokens.create(t);
    const body = Buffer.alloc(2000, 'x');
    await Promise.all(Array.from({ length: 2000 }, () => store.requests.insert(sampleRequest(t.uuid, { body, size: body.length }), 100_000)));
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await store.requests.insert(sampleRequest(t.uuid, { body, size: body.length }), 100_000);
        written++;
      }
    })();
    // Let the writer start, then back up in small steps, with captures committed between them.
    while (written < 20) await new Promise((r) => setImmediate(r));
    const atStart = (store.db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
    const dest = path.join(dir, 'live.backup.sqlite');
    let steps = 0;
    const writtenBefore = written;
    await backupSqlite(file, dest, () => steps++, 16);
    const writtenDuring = written - writtenBefore;
    writing = false;
    await writer;
    await store.close();
    expect(steps).toBeGreaterThan(50);
    expect(writtenDuring).toBeGreaterThan(10);
    expect(integrityCheck(dest)).toBe('ok');
    expect(fs.existsSync(`${dest}.partial`)).toBe(false);
    // Restored into a fresh DATA_DIR (docs/operating.md's steps): the store reads what was there at the start.
    const restored = path.join(dir, 'restored');
    fs.mkdirSync(restored);
    fs.copyFileSync(dest, path.join(restored, 'capture.sqlite'));
    const back = createSqliteStore(path.join(restored, 'capture.sqlite'));
    expect((await back.tokens.stats(t.uuid)).requests).toBe(atStart);
    expect((await back.requests.list(t.uuid, { page: 1, perPage: 1, sorting: 'newest' })).total).toBe(atStart);
    await back.close();
  }, 60_000);

  it('npm run cli -- backup: refuses an existing file unless --force, and a restored copy serves the API', async () => {
    const data = path.join(dir, 'served');
    const s = await startTestServer({ DATA_DIR: data });
    const tok = await s.token({});
    await fetch(`${s.url}/${tok.uuid}`, { method: 'POST', body: 'kept' });
    vi.stubEnv('DATA_DIR', data);
    vi.stubEnv('MONGODB_URI', '');
    const dest = path.join(dir, 'served.backup.sqlite');
    // While the service runs.
    expect(await cli('backup', dest), out.join('')).toBe(0);
    expect(out.join('')).toContain(`database: SQLite ${path.join(data, 'capture.sqlite')}`);
    expect(out.join('')).toMatch(/wrote .*served\.backup\.sqlite \(.* MiB, integrity ok\)/);
    expect(await cli('backup', dest)).toBe(1);
    expect(out.join('')).toContain('exists: choose a new file, or add --force');
    expect(await cli('backup', '--force', dest)).toBe(0);
    await s.close();

    const restored = path.join(dir, 'served-restored');
    fs.mkdirSync(restored);
    fs.copyFileSync(dest, path.join(restored, 'capture.sqlite'));
    const again = await startTestServer({ DATA_DIR: restored });
    try {
      const list = await again.call('GET', `/token/${tok.uuid}/requests`);
      expect(list.data.data.map((r: { content: string }) => r.content)).toEqual(['kept']);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('takes the bodies kept in files (DATA_DIR/bodies) beside the copy; restored as DATA_DIR/bodies they read back whole', async () => {
    const live = path.join(dir, 'filed');
    const bodyFiles = { dir: path.join(live, 'bodies'), threshold: 1024 };
    const store = createSqliteStore(path.join(live, 'capture.sqlite'), { bodyFiles });
    const t = sampleToken();
    await store.tokens.create(t);
    const big = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31 + 7) % 256));
    const kept = sampleRequest(t.uuid, { body: big, size: big.length });
    const deleted = sampleRequest(t.uuid, { body: big, size: big.length });
    await store.requests.insert(kept, 100);
    await store.requests.insert(deleted, 100);
    await store.requests.delete(t.uuid, deleted.uuid);
    const dest = path.join(dir, 'filed.backup.sqlite');
    const result = await backupSqlite(path.join(live, 'capture.sqlite'), dest);
    // A body captured after the backup is not in it; the backup's files stay as they were.
    await store.requests.insert(sampleRequest(t.uuid, { body: big, size: big.length }), 100);
    await store.close();
    expect(result.bodyFiles).toBe(1);
    expect(fs.readdirSync(path.join(bodiesBackupDir(dest), t.uuid))).toEqual([kept.uuid]);
    expect(fs.existsSync(`${bodiesBackupDir(dest)}.partial`)).toBe(false);

    // docs/operating.md's restore: the database file, and the bodies folder as DATA_DIR/bodies.
    const restored = path.join(dir, 'filed-restored');
    fs.mkdirSync(restored);
    fs.copyFileSync(dest, path.join(restored, 'capture.sqlite'));
    fs.cpSync(bodiesBackupDir(dest), path.join(restored, 'bodies'), { recursive: true });
    const back = createSqliteStore(path.join(restored, 'capture.sqlite'), { bodyFiles: { ...bodyFiles, dir: path.join(restored, 'bodies') } });
    try {
      expect((await back.requests.get(t.uuid, kept.uuid))!.body.equals(big)).toBe(true);
      expect((await back.tokens.stats(t.uuid)).requests).toBe(1);
    } finally {
      await back.close();
    }
  });

  it('npm run cli -- backup with MONGODB_URI set names the MongoDB tools instead', async () => {
    vi.stubEnv('MONGODB_URI', 'mongodb://user:pw@db.example.test/capture');
    expect(await cli('backup', path.join(dir, 'never.sqlite'))).toBe(1);
    expect(out.join('')).toMatch(/mongodump .*mongorestore .*filesystem snapshot of a replica-set member/);
    expect(out.join('')).not.toContain(':pw@');
    expect(fs.existsSync(path.join(dir, 'never.sqlite'))).toBe(false);
    vi.stubEnv('MONGODB_URI', '');
  });
});
