// Request bodies sent compressed (Content-Encoding) and bodies that are not text, on both stores:
// real compressed bytes (node:zlib) sent by real clients (node:http, and curl --data-binary @file,
// since curl --compressed only asks for compressed answers and never compresses what it sends).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardStoreData, NO_MONGO, startTestMongo, testDbName, withDatabase } from './helpers/mongo.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);

/** A POST from node:http with exactly these bytes and headers. */
function post(url: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Length': String(body.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    // The server may answer (413) before the whole body is written.
    req.on('error', reject);
    req.end(body);
  });
}

// 32 MiB of zeros, a few KiB compressed: far past the tests' 2 MiB limit once decoded.
const zeros = Buffer.alloc(32 * 1024 * 1024);
const BOMBS = { gzip: gzipSync(zeros), br: brotliCompressSync(zeros, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }) };

const mongo = await startTestMongo();
afterAll(() => mongo?.stop());

/** `uri` with its database (the path) replaced by `db`. */
const stores: Array<[string, (env: Record<string, string>) => Promise<{ srv: TestServer; done: () => Promise<void> }>, string | null]> = [
  [
    'SQLite',
    async (env) => {
      // A data folder, so that bodies past BODY_FILE_THRESHOLD go to files.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'capture-coding-'));
      const srv = await startTestServer({ DATA_DIR: dir, ...env });
      return { srv, done: async () => (await srv.close(), rmSync(dir, { recursive: true, force: true })) };
    },
    null,
  ],
  [
    'MongoDB',
    async (env) => {
      const db = testDbName('capture_coding');
      const srv = await startTestServer({ MONGODB_URI: withDatabase(mongo!.uri, db), ...env });
      return { srv, done: async () => (await srv.close(), await discardStoreData(mongo!.uri, db)) };
    },
    mongo ? null : NO_MONGO,
  ],
];

describe.each(stores)('%s', (_name, start, skip) => {
  let srv: TestServer;
  let done: () => Promise<void>;
  const files = mkdtempSync(path.join(os.tmpdir(), 'capture-coding-files-'));
  beforeAll(async () => {
    if (skip) return;
    ({ srv, done } = await start({ MAX_BODY_BYTES: String(2 * 1024 * 1024), BODY_FILE_THRESHOLD: String(64 * 1024) }));
  });
  afterAll(async () => {
    rmSync(files, { recursive: true, force: true });
    if (!skip) await done();
  });

  const latest = async (token: string) => (await srv.call('GET', `/token/${token}/request/latest`)).data;

  it.skipIf(skip)(`a gzip body is decoded for content, forms and search; raw gives the bytes as sent${skip ? `: ${skip}` : ''}`, async () => {
    const t = await srv.token();
    const sent = gzipSync('name=Ada+Lovelace&lang=en');
    const res = await post(`${srv.url}/${t.uuid}/in`, sent, { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(200);
    const r = await latest(t.uuid);
    expect(r).toMatchObject({ content: 'name=Ada+Lovelace&lang=en', request: { name: 'Ada Lovelace', lang: 'en' }, content_encoding: 'gzip', decoded: true, encoded_size: sent.length, size: 25 });
    expect(r.decode_error).toBeUndefined();
    expect(r.content_base64).toBeUndefined();
    expect(r.headers['content-encoding']).toEqual(['gzip']);
    const raw = await srv.call('GET', `/token/${t.uuid}/request/${r.uuid}/raw`);
    expect(raw.buf.equals(sent)).toBe(true);
    const found = await srv.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent('content:lovelace')}`);
    expect(found.data.data.map((x: { uuid: string }) => x.uuid)).toEqual([r.uuid]);
  });

  it.skipIf(skip)(`deflate (zlib and raw) and br, sent by curl --data-binary @file${skip ? `: ${skip}` : ''}`, async () => {
    const json = JSON.stringify({ event: 'order.paid', id: 42 });
    for (const [coding, bytes] of [
      ['deflate', deflateSync(json)],
      ['deflate', deflateRawSync(json)],
      ['br', brotliCompressSync(json)],
      ['x-gzip', gzipSync(json)],
    ] as const) {
      const t = await srv.token();
      const file = path.join(files, `body.${coding}`);
      writeFileSync(file, bytes);
      const { stdout } = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-H',
        'Content-Type: application/json',
        '-H',
        `Content-Encoding: ${coding}`,
        '--data-binary',
        `@${file}`,
        `${srv.url}/${t.uuid}`,
      ]);
      expect(stdout).toBe('200');
      const r = await latest(t.uuid);
      expect(r, coding).toMatchObject({ content: json, content_encoding: coding, decoded: true, encoded_size: bytes.length });
      expect((await srv.call('GET', `/token/${t.uuid}/request/${r.uuid}/raw`)).buf.equals(bytes)).toBe(true);
    }
  });

  it.skipIf(skip)(`a stacked list (gzip, then br) is undone in reverse order${skip ? `: ${skip}` : ''}`, async () => {
    const t = await srv.token();
    const sent = brotliCompressSync(gzipSync('twice compressed'));
    expect((await post(`${srv.url}/${t.uuid}`, sent, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip, br' })).status).toBe(200);
    expect(await latest(t.uuid)).toMatchObject({ content: 'twice compressed', content_encoding: 'gzip, br', decoded: true });
  });

  it.skipIf(skip)(`a multipart body past the file threshold once decoded keeps its parts${skip ? `: ${skip}` : ''}`, async () => {
    const t = await srv.token();
    const part = Buffer.alloc(300 * 1024, 'x');
    const multipart = Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue\r\n--b\r\nContent-Disposition: form-data; name="up"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n'),
      part,
      Buffer.from('\r\n--b--\r\n'),
    ]);
    const sent = gzipSync(multipart);
    expect(sent.length).toBeLessThan(64 * 1024);
    expect((await post(`${srv.url}/${t.uuid}`, sent, { 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Encoding': 'gzip' })).status).toBe(200);
    const r = await latest(t.uuid);
    expect(r).toMatchObject({ request: { field: 'value' }, size: multipart.length, encoded_size: sent.length, decoded: true });
    expect(r.files).toEqual([expect.objectContaining({ filename: 'a.txt', size: part.length })]);
    expect((await srv.call('GET', `/token/${t.uuid}/request/${r.uuid}/raw`)).buf.equals(sent)).toBe(true);
  });

  it.skipIf(skip)(`a body that decodes past MAX_BODY_BYTES gets 413 and nothing is stored${skip ? `: ${skip}` : ''}`, { timeout: 60_000 }, async () => {
    const t = await srv.token();
    for (const [coding, bytes] of [
      ['gzip', BOMBS.gzip],
      ['br', BOMBS.br],
    ] as const) {
      expect(bytes.length).toBeLessThan(64 * 1024);
      const res = await post(`${srv.url}/${t.uuid}`, bytes, { 'Content-Type': 'text/plain', 'Content-Encoding': coding });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/json/);
      expect(JSON.parse(res.text).message).toBe(`Body larger than ${2 * 1024 * 1024} bytes once decoded (Content-Encoding: ${coding})`);
    }
    expect((await srv.call('GET', `/token/${t.uuid}/requests`)).data.total).toBe(0);
  });

  it.skipIf(skip)(`a body that does not decode is kept as sent and says why${skip ? `: ${skip}` : ''}`, async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['gzip', Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 0xff, 0xfe]), /^could not decode gzip: /],
      ['gzip', gzipSync('cut short').subarray(0, 12), /^could not decode gzip: /],
      ['br', Buffer.from('not brotli at all'), /^could not decode br: /],
      ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x80]), /^unsupported content coding "zstd"$/],
    ];
    for (const [coding, sent, why] of cases) {
      const t = await srv.token();
      expect((await post(`${srv.url}/${t.uuid}`, sent, { 'Content-Type': 'application/octet-stream', 'Content-Encoding': coding })).status).toBe(200);
      const r = await latest(t.uuid);
      expect(r, coding).toMatchObject({ content_encoding: coding, decoded: false, encoded_size: sent.length, size: sent.length });
      expect(r.decode_error).toMatch(why);
      const asText = sent.toString('utf8');
      expect(r.content).toBe(asText);
      if (!Buffer.from(asText).equals(sent)) expect(Buffer.from(r.content_base64, 'base64').equals(sent)).toBe(true);
      expect((await srv.call('GET', `/token/${t.uuid}/request/${r.uuid}/raw`)).buf.equals(sent)).toBe(true);
    }
  });

  it.skipIf(skip)(`a body that is not UTF-8 is carried in base64 by the API, CSV and HAR${skip ? `: ${skip}` : ''}`, async () => {
    const t = await srv.token();
    const sent = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x41]);
    const file = path.join(files, 'binary.bin');
    writeFileSync(file, sent);
    await run('curl', ['-s', '-o', '/dev/null', '-H', 'Content-Type: image/png', '--data-binary', `@${file}`, `${srv.url}/${t.uuid}`]);
    const r = await latest(t.uuid);
    expect(Buffer.from(r.content_base64, 'base64').equals(sent)).toBe(true);
    expect(r.content).toBe(sent.toString('utf8'));
    expect(r.content_encoding).toBeUndefined();
    const listed = (await srv.call('GET', `/token/${t.uuid}/requests`)).data.data[0];
    expect(listed.content_base64).toBe(sent.toString('base64'));

    const har = await srv.call('GET', `/token/${t.uuid}/requests/export?format=har`);
    const postData = JSON.parse(har.text).log.entries[0].request.postData;
    expect(postData).toMatchObject({ mimeType: 'image/png', text: sent.toString('base64'), encoding: 'base64' });

    const csv = (await srv.call('GET', `/token/${t.uuid}/requests/export`)).text;
    const columns = csv.slice(0, csv.indexOf('\r\n')).split(',');
    expect(columns.indexOf('content_base64')).toBe(columns.indexOf('content') + 1);
    // The content cell is quoted (the bytes hold CR LF); the base64 cell follows it.
    expect(csv).toContain(`",${sent.toString('base64')},`);

    // A text body has none.
    await post(`${srv.url}/${t.uuid}`, Buffer.from('plain é text'), { 'Content-Type': 'text/plain' });
    const text = await latest(t.uuid);
    expect(text.content).toBe('plain é text');
    expect(text.content_base64).toBeUndefined();
  });

  it.skipIf(skip)(`redaction of a decoded body also drops the bytes as sent${skip ? `: ${skip}` : ''}`, async () => {
    const t = await srv.token({ redaction: { rules: [{ kind: 'regex', pattern: 'sk_live_[a-z0-9]+' }] } });
    const sent = gzipSync('key=sk_live_abc123');
    expect((await post(`${srv.url}/${t.uuid}`, sent, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' })).status).toBe(200);
    const r = await latest(t.uuid);
    expect(r.content).not.toContain('sk_live_abc123');
    expect(r.decoded).toBe(true);
    const raw = await srv.call('GET', `/token/${t.uuid}/request/${r.uuid}/raw`);
    expect(raw.text).toBe(r.content);
  });
});
