// A full disk is an expected condition: with DATA_DIR on a small real file system (a tmpfs) that is
// filled up, writes answer 507 with a JSON message (never a 500 or a hang), /readyz turns 503,
// reads keep working; once space is freed the service takes captures again by itself, and after a
// restart every capture that was answered 2xx is there and no partial or orphaned body file is left.
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_EVERY_MS } from '../core/store/space.js';
import { uuidv7 } from '../core/util/uuid.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { canMountTmpfs, mountTmpfs, NO_TMPFS, type Tmpfs } from './helpers/tmpfs.js';

const THRESHOLD = 1024;
const SIZE = 16 * 1024 * 1024;
/** Longer than any answer takes here: a capture that has none by then hangs. */
const ANSWER_MS = 15_000;

const mountable = canMountTmpfs();

/** Bytes that are not text in places, so that a body read back shows any change. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) % 256;
  return b;
}

// Both capture writers: on the event loop's connection, and on a thread of its own.
describe.skipIf(!mountable).each(['in-thread', 'worker'] as const)(mountable ? 'a full disk (%s writer)' : `a full disk (%s writer): ${NO_TMPFS}`, (writer) => {
  let tmpfs: Tmpfs;
  const env = () => ({ DATA_DIR: tmpfs.dir, BODY_FILE_THRESHOLD: String(THRESHOLD), SQLITE_WRITER: writer });
  let s: TestServer;
  let owner: { id: number; key: string };
  let tokenId: string;
  /** Every capture answered 2xx, with the body it was sent. */
  const acked = new Map<string, Buffer>();
  const bodies = () => path.join(tmpfs.dir, 'bodies');
  const incoming = () => readdirSync(path.join(bodies(), '.incoming'));
  const filed = () => (existsSync(path.join(bodies(), tokenId)) ? readdirSync(path.join(bodies(), tokenId)).sort() : []);
  const filedAcked = () =>
    [...acked]
      .filter(([, body]) => body.length > THRESHOLD)
      .map(([id]) => id)
      .sort();

  async function capture(body: Buffer): Promise<{ status: number; type: string | null; data: any }> {
    let r: Response;
    try {
      r = await fetch(`${s.url}/${tokenId}`, { method: 'POST', body: new Uint8Array(body), signal: AbortSignal.timeout(ANSWER_MS) });
    } catch (err) {
      throw new Error(`a capture of ${body.length} bytes got no answer: ${(err as Error).message}`);
    }
    const text = await r.text();
    if (r.status === 200) acked.set(r.headers.get('x-request-id')!, body);
    return { status: r.status, type: r.headers.get('content-type'), data: r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  }
  const get = (p: string) => s.call('GET', p, { key: owner.key });

  beforeAll(async () => {
    tmpfs = mountTmpfs(SIZE)!;
    s = await startTestServer(env());
    owner = await s.user(true);
    tokenId = (await s.token({}, owner.key)).uuid;
    expect((await capture(Buffer.from('before the disk filled'))).status).toBe(200);
    expect((await capture(bytes(50_000, 1))).status).toBe(200);
    // Listed (caught up) before the disk fills.
    expect((await get(`/token/${tokenId}/requests`)).data.total).toBe(2);
  });
  afterAll(async () => {
    await s?.close();
    tmpfs?.unmount();
  });

  it('writes answer 507 with a JSON message, /readyz 503 with a reason, reads keep working', async () => {
    tmpfs.fill();
    // A small capture may still fit in space SQLite already holds; each answer is 200 or 507.
    let refused: Awaited<ReturnType<typeof capture>> | null = null;
    for (let i = 0; i < 500 && !refused; i++) {
      const r = await capture(Buffer.from(`small ${i} ${'x'.repeat(200)}`));
      if (r.status !== 200) refused = r;
    }
    expect(refused).toMatchObject({ status: 507, type: 'application/json', data: { message: expect.stringMatching(/space/) } });

    // Past BODY_FILE_THRESHOLD the body goes to a file as it arrives: refused too, and nothing left of it.
    const large = await capture(bytes(300_000, 2));
    expect(large).toMatchObject({ status: 507, type: 'application/json', data: { message: expect.stringMatching(/space/) } });
    expect(incoming()).toEqual([]);
    expect(filed()).toEqual(filedAcked());

    // API writes.
    const created = await s.call('POST', '/token', { key: owner.key, json: {} });
    expect(created.status).toBe(507);
    expect(created.data.message).toMatch(/space/);

    const ready = await s.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.data).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/space/) });
    expect((await s.call('GET', '/healthz')).status).toBe(200);

    // Reads: list, one request, raw, a search.
    const [first, second] = [...acked.keys()];
    const list = await get(`/token/${tokenId}/requests?sorting=oldest`);
    expect(list.status).toBe(200);
    expect(list.data.data.map((r: { uuid: string }) => r.uuid).slice(0, 2)).toEqual([first, second]);
    const one = await get(`/token/${tokenId}/request/${first}`);
    expect(one.status).toBe(200);
    expect(one.data.content).toBe('before the disk filled');
    const raw = await get(`/token/${tokenId}/request/${second}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.buf.equals(acked.get(second!)!)).toBe(true);
    const found = await get(`/token/${tokenId}/requests?query=${encodeURIComponent('"before the disk"')}`);
    expect(found.status).toBe(200);
    expect(found.data.data.map((r: { uuid: string }) => r.uuid)).toEqual([first]);
    // An export counts against a limit kept in the store; a count that cannot be written lets it through.
    const exported = await get(`/token/${tokenId}/requests/export?sorting=oldest`);
    expect(exported.status).toBe(200);
    expect(exported.text).toContain(first);
  });

  it('a large body that fits in its file while its row does not fit: 507, and the file is removed', async () => {
    const body = bytes(50 * 4096, 6);
    // Room for the body's pages and nothing more: the file is written and placed, the commit fails.
    tmpfs.free();
    tmpfs.fill(body.length);
    const r = await capture(body);
    expect(r).toMatchObject({ status: 507, type: 'application/json', data: { message: expect.stringMatching(/space/) } });
    expect(filed()).toEqual(filedAcked());
    expect(incoming()).toEqual([]);
  });

  it('takes captures again by itself once space is freed, and /readyz turns 200', async () => {
    tmpfs.free();
    expect((await capture(Buffer.from('after space returned'))).status).toBe(200);
    const large = bytes(300_000, 3);
    expect((await capture(large)).status).toBe(200);
    // Ready once a probe write goes through: at most PROBE_EVERY_MS after the last failed write.
    const deadline = Date.now() + 3 * PROBE_EVERY_MS;
    let ready = await s.call('GET', '/readyz');
    while (ready.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      ready = await s.call('GET', '/readyz');
    }
    expect(ready.status).toBe(200);
    expect((await s.call('POST', '/token', { key: owner.key, json: {} })).status).toBe(200);
    expect(filed()).toEqual(filedAcked());
    expect(incoming()).toEqual([]);
  });

  it('after a restart: every capture answered 2xx is stored, and no partial or orphaned body file is left', async () => {
    await s.close();
    s = await startTestServer(env());
    for (const [id, body] of acked) {
      const raw = await get(`/token/${tokenId}/request/${id}/raw`);
      expect(raw.status, id).toBe(200);
      expect(raw.buf.equals(body), id).toBe(true);
    }
    const list = await get(`/token/${tokenId}/requests?per_page=100`);
    expect(list.data.total).toBe(acked.size);
    expect(incoming()).toEqual([]);
    expect(filed()).toEqual(filedAcked());
  });

  it('at start-up, removes what a process that died left: partial uploads and old bodies of no request, never a stored body', async () => {
    await s.close();
    const old = new Date(Date.now() - 3_600_000);
    // A partial upload of a process that died.
    const partial = path.join(bodies(), '.incoming', '999999-1-1');
    writeFileSync(partial, 'partial');
    // A body placed for a request that was never committed (the process died in between), an hour ago.
    const orphan = path.join(bodies(), tokenId, uuidv7(Date.now()));
    writeFileSync(orphan, bytes(5000, 4));
    utimesSync(orphan, old, old);
    // One placed a moment ago: it may be another instance's, about to be committed.
    const recent = path.join(bodies(), tokenId, uuidv7(Date.now()));
    writeFileSync(recent, bytes(5000, 5));
    // The stored bodies, aged too: they stay.
    for (const id of filedAcked()) utimesSync(path.join(bodies(), tokenId, id), old, old);

    s = await startTestServer(env());
    // Sweeps run one at a time: this one starts once the start-up pass is done.
    await s.services.store.bodyFiles!.sweep(0);
    expect(incoming()).toEqual([]);
    expect(filed()).toEqual([...filedAcked(), path.basename(recent)].sort());
    for (const id of filedAcked()) expect(statSync(path.join(bodies(), tokenId, id)).size).toBe(acked.get(id)!.length);
  });
});
