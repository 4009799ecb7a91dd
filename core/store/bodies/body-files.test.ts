// Bodies past BODY_FILE_THRESHOLD: kept in a file under DATA_DIR/bodies, read back byte for byte by
// every reader, and the file goes with its request. Real server, real SQLite file, real files.
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { uuidv7 } from '../../util/uuid.js';
import { ORPHAN_AGE_MS } from './body-files.js';

const THRESHOLD = 1024;
let s: TestServer;
let dataDir: string;
let owner: { id: number; key: string };

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'body-files-'));
  s = await startTestServer({ DATA_DIR: dataDir, BODY_FILE_THRESHOLD: String(THRESHOLD) });
  owner = await s.user(true);
});
afterAll(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Bytes that are not UTF-8 text in places, so that any re-encoding would show. */
function bigBody(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) % 256;
  return b;
}
const textBody = (n: number, seed: string) => Buffer.from(seed.repeat(Math.ceil(n / seed.length)).slice(0, n));
const bodiesDir = () => path.join(dataDir, 'bodies');
const filesOf = (tokenId: string): string[] => {
  try {
    return readdirSync(path.join(bodiesDir(), tokenId));
  } catch {
    return [];
  }
};
const incoming = () => readdirSync(path.join(bodiesDir(), '.incoming'));
/** Makes every body file as old as ORPHAN_AGE_MS and a second: one of no request is then the sweeper's. */
function age(): void {
  const then = new Date(Date.now() - ORPHAN_AGE_MS - 1000);
  for (const d of readdirSync(bodiesDir())) if (d !== '.incoming') for (const f of filesOf(d)) utimesSync(path.join(bodiesDir(), d, f), then, then);
}

async function capture(tokenId: string, body: Buffer, contentType = 'application/octet-stream') {
  const r = await s.call('POST', `/${tokenId}`, { body, headers: { 'Content-Type': contentType } });
  expect(r.status).toBe(200);
  return r.headers.get('x-request-id')!;
}

describe('bodies past BODY_FILE_THRESHOLD', () => {
  it('a body of the threshold or less stays in the row; one byte more goes to a file', async () => {
    const t = await s.token();
    const small = await capture(t.uuid, bigBody(THRESHOLD, 3));
    expect(filesOf(t.uuid)).toEqual([]);
    const big = await capture(t.uuid, bigBody(THRESHOLD + 1, 3));
    expect(filesOf(t.uuid)).toEqual([big]);
    for (const [id, n] of [
      [small, THRESHOLD],
      [big, THRESHOLD + 1],
    ] as const) {
      const raw = await s.call('GET', `/token/${t.uuid}/request/${id}/raw`);
      expect(raw.buf.equals(bigBody(n, 3))).toBe(true);
    }
  });

  it('are kept in a file, not the row, and come back byte-identical via raw, the JSON API, the list and the HAR export', async () => {
    const t = await s.token();
    const body = bigBody(200_000, 7);
    const text = textBody(5000, 'héllo wörld ');
    const id = await capture(t.uuid, body);
    const textId = await capture(t.uuid, text, 'text/plain');
    expect(filesOf(t.uuid).sort()).toEqual([id, textId].sort());
    expect(incoming()).toEqual([]);

    const raw = await s.call('GET', `/token/${t.uuid}/request/${id}/raw`);
    expect(raw.headers.get('content-length')).toBe(String(body.length));
    expect(raw.buf.equals(body)).toBe(true);
    const one = await s.call('GET', `/token/${t.uuid}/request/${textId}`);
    expect(one.data.content).toBe(text.toString('utf8'));
    expect(one.data.size).toBe(text.length);
    const binary = await s.call('GET', `/token/${t.uuid}/request/${id}`);
    expect(binary.data.content).toBe(body.toString('utf8'));
    const list = await s.call('GET', `/token/${t.uuid}/requests?sorting=oldest`);
    expect(list.data.data.map((x: { content: string }) => x.content)).toEqual([body.toString('utf8'), text.toString('utf8')]);
    const har = await s.call('GET', `/token/${t.uuid}/requests/export?format=har`);
    const entries = (JSON.parse(har.text) as { log: { entries: Array<{ request: { postData?: { text: string } } }> } }).log.entries;
    expect(entries.map((e) => e.request.postData?.text).sort()).toEqual([body.toString('base64'), text.toString('utf8')].sort());
  });

  it('small bodies stay in the row (no file)', async () => {
    const t = await s.token();
    const id = await capture(t.uuid, Buffer.from('small'));
    expect(filesOf(t.uuid)).toEqual([]);
    expect((await s.call('GET', `/token/${t.uuid}/request/${id}/raw`)).text).toBe('small');
  });

  it('are read by a JavaScript action and a text action as before', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const add = (json: Record<string, unknown>) => s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json });
    expect((await add({ type: 'javascript', parameters: { script: "set('js_length', String(get('request.content').length))" } })).status).toBe(200);
    expect((await add({ type: 'modify_response', parameters: { content: '$js_length$:$request.content$' } })).status).toBe(200);
    const body = textBody(50_000, 'abcdefghij');
    const r = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'text/plain' } });
    expect(r.status).toBe(200);
    expect(r.text).toBe(`50000:${body.toString('utf8')}`);
    expect(filesOf(t.uuid)).toHaveLength(1);
  });

  it('multipart uploads past it: fields and file downloads as before', async () => {
    const t = await s.token();
    const file = bigBody(30_000, 3);
    const form = new FormData();
    form.append('name', 'value');
    form.append('upload', new Blob([new Uint8Array(file)]), 'data.bin');
    const r = await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: form });
    expect(r.status).toBe(200);
    const id = r.headers.get('x-request-id')!;
    const view = (await s.call('GET', `/token/${t.uuid}/request/${id}`)).data;
    expect(view.request).toEqual({ name: 'value' });
    const dl = await s.call('GET', `/token/${t.uuid}/request/${id}/download/${view.files[0].id}`);
    expect(dl.buf.equals(file)).toBe(true);
    expect((await s.call('GET', `/token/${t.uuid}/request/${id}/raw`)).buf.length).toBe(view.size);
  });

  it('multipart bodies past it, parsed from the file: every field and file part, downloads and raw byte for byte', async () => {
    const t = await s.token();
    const big = bigBody(50_000, 5);
    const small = Buffer.from('tiny part');
    const form = new FormData();
    form.append('name', 'value');
    form.append('big', new Blob([new Uint8Array(big)], { type: 'image/png' }), 'big.png');
    form.append('name', 'second');
    form.append('small', new Blob([new Uint8Array(small)]), 'small.txt');
    form.append('empty', new Blob([]), 'empty.bin');
    // Encoded once, so that the bytes sent and the boundary in the content type agree.
    const encoded = new Request('http://x', { method: 'POST', body: form });
    const contentType = encoded.headers.get('content-type')!;
    const sent = Buffer.from(await encoded.arrayBuffer());
    expect(sent.length).toBeGreaterThan(THRESHOLD);
    const id = await capture(t.uuid, sent, contentType);
    expect(filesOf(t.uuid)).toEqual([id]);

    const view = (await s.call('GET', `/token/${t.uuid}/request/${id}`)).data;
    expect(view.request).toEqual({ name: ['value', 'second'] });
    expect(view.size).toBe(sent.length);
    const files = view.files as Array<{ id: string; name: string; filename: string; size: number; content_type: string }>;
    expect(files.map(({ id: _id, ...meta }) => meta)).toEqual([
      { name: 'big', filename: 'big.png', size: big.length, content_type: 'image/png' },
      { name: 'small', filename: 'small.txt', size: small.length, content_type: 'application/octet-stream' },
      { name: 'empty', filename: 'empty.bin', size: 0, content_type: 'application/octet-stream' },
    ]);
    for (const [i, bytes] of [big, small, Buffer.alloc(0)].entries()) {
      const dl = await s.call('GET', `/token/${t.uuid}/request/${id}/download/${files[i]!.id}`);
      expect(dl.status).toBe(200);
      expect(dl.buf.equals(bytes)).toBe(true);
    }
    expect((await s.call('GET', `/token/${t.uuid}/request/${id}/raw`)).buf.equals(sent)).toBe(true);
    // The file parts spooled beside the received body went with it.
    expect(incoming()).toEqual([]);
  });

  it('urlencoded bodies past it: fields as before', async () => {
    const t = await s.token();
    const long = 'é&='.repeat(1000);
    const sent = Buffer.from(
      new URLSearchParams([
        ['a', long],
        ['b', '1'],
        ['a', '2'],
      ]).toString(),
    );
    const id = await capture(t.uuid, sent, 'application/x-www-form-urlencoded');
    expect(filesOf(t.uuid)).toEqual([id]);
    const view = (await s.call('GET', `/token/${t.uuid}/request/${id}`)).data;
    expect(view.request).toEqual({ a: [long, '2'], b: '1' });
    expect((await s.call('GET', `/token/${t.uuid}/request/${id}/raw`)).buf.equals(sent)).toBe(true);
  });

  it('a refused capture leaves no file behind', async () => {
    const r = await s.call('POST', `/00000000-0000-4000-8000-000000000000`, { body: bigBody(10_000, 1) });
    expect(r.status).toBe(404);
    expect(incoming()).toEqual([]);
  });

  describe('the file goes with its request', () => {
    const sweepPass = (limit?: number) => s.services.store.bodyFiles!.sweep(limit);
    // Two passes: the first may only end a walk begun before these files were made.
    const sweep = async () => {
      age();
      return (await sweepPass()) + (await sweepPass());
    };

    it('single delete', async () => {
      const t = await s.token();
      const id = await capture(t.uuid, bigBody(5000, 1));
      expect((await s.call('DELETE', `/token/${t.uuid}/request/${id}`)).status).toBe(204);
      expect(filesOf(t.uuid)).toEqual([]);
    });

    it('bulk delete (swept)', async () => {
      const t = await s.token();
      await capture(t.uuid, bigBody(5000, 1));
      await capture(t.uuid, bigBody(5000, 2));
      const kept = await capture(t.uuid, Buffer.from('small'));
      expect(filesOf(t.uuid)).toHaveLength(2);
      expect((await s.call('DELETE', `/token/${t.uuid}/request`)).status).toBeLessThan(300);
      expect(await sweep()).toBeGreaterThanOrEqual(2);
      expect(filesOf(t.uuid)).toEqual([]);
      expect(kept).toBeTruthy();
    });

    it('trim to the token limit (swept)', async () => {
      const t = await s.token({ request_limit: 1 });
      const first = await capture(t.uuid, bigBody(5000, 1));
      const second = await capture(t.uuid, bigBody(5000, 2));
      // Trimming happens when the capture index catches up, which a read makes sure of.
      expect((await s.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(1);
      await sweep();
      expect(filesOf(t.uuid)).toEqual([second]);
      expect(first).not.toBe(second);
      expect((await s.call('GET', `/token/${t.uuid}/request/${second}/raw`)).buf.equals(bigBody(5000, 2))).toBe(true);
    });

    it('token delete (swept)', async () => {
      const t = await s.token();
      await capture(t.uuid, bigBody(5000, 1));
      expect((await s.call('DELETE', `/token/${t.uuid}`)).status).toBeLessThan(300);
      await sweep();
      expect(filesOf(t.uuid)).toEqual([]);
    });

    it('a pass checks a bounded number of files, continuing its walk where the last pass stopped', async () => {
      const t = await s.token();
      for (let i = 0; i < 5; i++) await capture(t.uuid, bigBody(5000, i));
      expect((await s.call('DELETE', `/token/${t.uuid}/request`)).status).toBeLessThan(300);
      const all = () =>
        readdirSync(bodiesDir())
          .filter((d) => d !== '.incoming')
          .reduce((n, d) => n + filesOf(d).length, 0);
      // Passes of 2: each removes at most 2, and enough of them (the rest of a walk, then one of every file) remove all 5.
      const passes = 2 * Math.ceil(all() / 2) + 2;
      age();
      for (let i = 0; i < passes && filesOf(t.uuid).length; i++) expect(await sweepPass(2)).toBeLessThanOrEqual(2);
      expect(filesOf(t.uuid)).toEqual([]);
    });

    it('a file of no request stays while younger than ORPHAN_AGE_MS: its row may be on its way', async () => {
      const t = await s.token();
      await capture(t.uuid, bigBody(5000, 1));
      const placed = uuidv7(Date.now());
      writeFileSync(path.join(bodiesDir(), t.uuid, placed), bigBody(5000, 2));
      expect((await sweepPass()) + (await sweepPass())).toBe(0);
      expect(filesOf(t.uuid)).toContain(placed);
      await sweep();
      expect(filesOf(t.uuid)).toHaveLength(1);
      expect(filesOf(t.uuid)).not.toContain(placed);
    });

    it('expiry (swept)', async () => {
      const t = await s.token(); // anonymous: expires after a week
      await capture(t.uuid, bigBody(5000, 1));
      expect(filesOf(t.uuid)).toHaveLength(1);
      // The retention job deletes the expired token; the body sweeper then its files.
      const { cleanupTokens } = await import('../../lifecycle/cleanup.js');
      await cleanupTokens(s.services.store, s.services.tokens, { now: () => Date.now() + 8 * 24 * 3600 * 1000 });
      await sweep();
      expect(filesOf(t.uuid)).toEqual([]);
    });
  });
});
