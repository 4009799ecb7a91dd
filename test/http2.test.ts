// HTTP/2 on the HTTP port, with real clients: cleartext with prior knowledge (h2c: curl
// --http2-prior-knowledge, node:http2), and HTTPS with ALPN when TLS_CERT/TLS_KEY are set (curl
// --http2 and --http1.1 against a self-signed certificate made here). Every capture feature and the
// API answer the same as over HTTP/1.1.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP2_PREFACE } from '../core/http/preface.js';
import type { RequestRecord } from '../core/store/types.js';
import { sampleSum } from './helpers/metrics.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const DOMAIN = 'hooks.example.test';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'capture-h2-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface H2Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** Whether the stream ended with a trailers frame. */
  trailers: boolean;
}

/** One request on an HTTP/2 session to `base` (a new session unless one is given). */
async function h2(base: string, headers: http2.OutgoingHttpHeaders, body?: string | Buffer, session?: http2.ClientHttp2Session): Promise<H2Answer> {
  const client = session ?? http2.connect(base, { maxSendHeaderBlockLength: 1024 * 1024 });
  try {
    return await new Promise<H2Answer>((resolve, reject) => {
      client.once('error', reject);
      const req = client.request(headers);
      const chunks: Buffer[] = [];
      let head: http2.IncomingHttpHeaders = {};
      let trailers = false;
      req.on('response', (h) => (head = h));
      req.on('trailers', () => (trailers = true));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: Number(head[':status']), headers: head, body: buf, text: buf.toString('utf8'), trailers });
      });
      req.on('error', reject);
      req.end(body);
    });
  } finally {
    if (!session) client.close();
  }
}

/** The captures of the server, as the pipeline hands them on. */
function recordCaptures(srv: TestServer): RequestRecord[] {
  const seen: RequestRecord[] = [];
  srv.pipeline.captured.push((_token, record) => void seen.push(record));
  return seen;
}

/** Captures the server counted as refused or failed, whatever their status. */
async function failedCaptures(srv: TestServer): Promise<number> {
  return sampleSum((await srv.metrics.scrape()).body, 'capture_captures_total', { outcome: 'rejected' });
}

async function stored(srv: TestServer, token: string): Promise<Array<Record<string, any>>> {
  const r = await srv.call('GET', `/token/${token}/requests?sorting=oldest&per_page=50`);
  expect(r.status).toBe(200);
  return r.data.data;
}

describe('cleartext HTTP/2 with prior knowledge (h2c)', () => {
  let srv: TestServer;
  let captures: RequestRecord[];
  const THRESHOLD = 64 * 1024;
  beforeAll(async () => {
    srv = await startTestServer({
      CAPTURE_DOMAIN: DOMAIN,
      DATA_DIR: path.join(tmp, 'h2c'),
      BODY_FILE_THRESHOLD: String(THRESHOLD),
      MAX_BODY_BYTES: String(1024 * 1024),
      MAX_HEADER_BYTES: '4096',
    });
    captures = recordCaptures(srv);
  });
  afterAll(() => srv.close());

  it('curl --http2-prior-knowledge is captured and answered over HTTP/2', async () => {
    const t = await srv.token({ default_content: 'over h2' });
    const { stdout } = await run('curl', ['-s', '--http2-prior-knowledge', '-d', 'a=1', '-w', '\n%{http_code} %{http_version}', `${srv.url}/${t.uuid}/x?q=1`]);
    expect(stdout).toBe('over h2\n200 2');
    const [r] = await stored(srv, t.uuid);
    const host = new URL(srv.url).host;
    expect(r).toMatchObject({ method: 'POST', url: `http://${host}/${t.uuid}/x?q=1`, content: 'a=1', request: { a: '1' }, query: { q: '1' } });
    // Pseudo-headers are the request line, not headers; :authority is stored as Host.
    expect(Object.keys(r!.headers)[0]).toBe('host');
    expect(r!.headers.host).toEqual([host]);
    expect(Object.keys(r!.headers).filter((n) => n.startsWith(':'))).toEqual([]);
    expect(captures.find((c) => c.uuid === r!.uuid)?.httpVersion).toBe('2');
    expect(r!.http_version).toBe('2');
  });

  it('an HTTP/1.1 capture on the same port records its version', async () => {
    const t = await srv.token();
    expect((await srv.call('GET', `/${t.uuid}`)).status).toBe(200);
    const [r] = await stored(srv, t.uuid);
    expect(captures.find((c) => c.uuid === r!.uuid)?.httpVersion).toBe('1.1');
    expect(r!.http_version).toBe('1.1');
  });

  it("stores each capture's HTTP version: shown, searchable, in the CSV and HAR exports", async () => {
    const t = await srv.token();
    const url = `${srv.url}/${t.uuid}`;
    await run('curl', ['-s', '--http1.0', '-o', '/dev/null', `${url}/one`]);
    await run('curl', ['-s', '--http1.1', '-o', '/dev/null', `${url}/eleven`]);
    expect((await h2(srv.url, { ':method': 'GET', ':path': `/${t.uuid}/two` })).status).toBe(200);
    const all = await stored(srv, t.uuid);
    expect(all.map((r) => [new URL(r.url).pathname.split('/')[2], r.http_version])).toEqual([
      ['one', '1.0'],
      ['eleven', '1.1'],
      ['two', '2'],
    ]);
    // One request by its ID carries it too.
    expect((await srv.call('GET', `/token/${t.uuid}/request/${all[2]!.uuid}`)).data.http_version).toBe('2');
    const search = await srv.call('GET', `/token/${t.uuid}/requests?query=${encodeURIComponent('http_version:2')}`);
    expect(search.data.data.map((r: { uuid: string }) => r.uuid)).toEqual([all[2]!.uuid]);
    const csv = (await srv.call('GET', `/token/${t.uuid}/requests/export?sorting=oldest`)).text.split('\r\n');
    const col = csv[0]!.split(',').indexOf('http_version');
    expect(col).toBeGreaterThan(-1);
    expect(csv.slice(1, 4).map((line) => line.split(',')[col])).toEqual(['1.0', '1.1', '2']);
    const har = (await srv.call('GET', `/token/${t.uuid}/requests/export?format=har&sorting=oldest`)).data;
    expect(har.log.entries.map((e: { request: { httpVersion: string } }) => e.request.httpVersion)).toEqual(['HTTP/1.0', 'HTTP/1.1', 'HTTP/2.0']);
  });

  it('node:http2: captures, the status path, an alias and a subdomain on one session', async () => {
    const owner = await srv.user(true);
    const t = await srv.token({ default_status: 201, alias: 'h2-alias' }, owner.key);
    const session = http2.connect(srv.url);
    try {
      expect((await h2(srv.url, { ':method': 'POST', ':path': `/${t.uuid}`, 'content-type': 'application/json' }, '{"a":1}', session)).status).toBe(201);
      expect((await h2(srv.url, { ':path': `/${t.uuid}/404` }, undefined, session)).status).toBe(404);
      expect((await h2(srv.url, { ':path': '/h2-alias/by-alias' }, undefined, session)).status).toBe(201);
      expect((await h2(srv.url, { ':path': '/sub', ':authority': `${t.uuid}.${DOMAIN}` }, undefined, session)).status).toBe(201);
    } finally {
      session.close();
    }
    const rows = (await srv.call('GET', `/token/${t.uuid}/requests?sorting=oldest`, { key: owner.key })).data.data as Array<Record<string, any>>;
    expect(rows.map((r) => [r.method, new URL(r.url).pathname, r.content])).toEqual([
      ['POST', `/${t.uuid}`, '{"a":1}'],
      ['GET', `/${t.uuid}/404`, ''],
      ['GET', '/h2-alias/by-alias', ''],
      ['GET', '/sub', ''],
    ]);
    expect(rows[3]!.url).toBe(`http://${t.uuid}.${DOMAIN}/sub`);
  });

  it('node:http2: a capture gets the head it gets over HTTP/1.1, its body, and no trailers', async () => {
    const t = await srv.token({ default_status: 202, default_content: 'héllo', default_content_type: 'text/plain; charset=utf-8' });
    const session = http2.connect(srv.url);
    try {
      const get = await h2(srv.url, { ':path': `/${t.uuid}` }, undefined, session);
      const [row] = await stored(srv, t.uuid);
      expect(get.headers).toMatchObject({
        ':status': 202,
        'content-type': 'text/plain; charset=utf-8',
        'x-request-id': row!.uuid,
        'x-token-id': t.uuid,
        'content-length': String(Buffer.byteLength('héllo')),
      });
      expect(typeof get.headers.date).toBe('string');
      expect(get.text).toBe('héllo');
      expect(get.trailers).toBe(false);
      // HEAD: the same head, no body.
      const head = await h2(srv.url, { ':method': 'HEAD', ':path': `/${t.uuid}` }, undefined, session);
      expect(head.headers).toMatchObject({ ':status': 202, 'content-length': String(Buffer.byteLength('héllo')) });
      expect(head.text).toBe('');
      // An empty default body: length 0, the stream ended with the head's frames.
      const empty = await srv.token({});
      const none = await h2(srv.url, { ':method': 'POST', ':path': `/${empty.uuid}` }, '{}', session);
      expect([none.status, none.headers['content-length'], none.body.length, none.trailers]).toEqual([200, '0', 0, false]);
    } finally {
      session.close();
    }
  });

  it('node:http2: the API answers (token, request list) as over HTTP/1.1', async () => {
    const t = await srv.token();
    const r = await h2(srv.url, { ':path': `/token/${t.uuid}`, accept: 'application/json' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).uuid).toBe(t.uuid);
    const created = await h2(srv.url, { ':method': 'POST', ':path': '/token', 'content-type': 'application/json' }, JSON.stringify({ default_content: 'x' }));
    expect(created.status).toBe(200);
    expect(JSON.parse(created.text).default_content).toBe('x');
  });

  it('node:http2: the SSE stream delivers a capture', async () => {
    const t = await srv.token();
    const session = http2.connect(srv.url);
    try {
      const stream = session.request({ ':path': `/token/${t.uuid}/events` });
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
      const head = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      expect(head[':status']).toBe(200);
      expect(head['content-type']).toMatch(/^text\/event-stream/);
      await expect.poll(() => text).toContain(': connected');
      expect((await h2(srv.url, { ':method': 'POST', ':path': `/${t.uuid}` }, 'live')).status).toBe(200);
      await expect.poll(() => text, { timeout: 5000 }).toMatch(/event: request\.created\nid: \d+|id: \d+\nevent: request\.created/);
      expect(text).toContain('"content":"live"');
      stream.close();
    } finally {
      session.close();
    }
  });

  it('node:http2: a multipart upload keeps its fields and files', async () => {
    const t = await srv.token();
    const boundary = 'h2boundary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n--${boundary}--\r\n`;
    const r = await h2(srv.url, { ':method': 'POST', ':path': `/${t.uuid}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body);
    expect(r.status).toBe(200);
    const [row] = await stored(srv, t.uuid);
    expect(row!.request).toEqual({ field: 'value' });
    expect(Object.values(row!.files as Record<string, any>).map((f) => [f.filename, f.size])).toEqual([['a.txt', 9]]);
  });

  it('node:http2: a body past BODY_FILE_THRESHOLD is stored whole (as a file)', async () => {
    const t = await srv.token();
    const big = Buffer.alloc(THRESHOLD * 3, 'abcdefgh');
    expect((await h2(srv.url, { ':method': 'PUT', ':path': `/${t.uuid}`, 'content-type': 'application/octet-stream' }, big)).status).toBe(200);
    const [row] = await stored(srv, t.uuid);
    expect(row!.size).toBe(big.length);
    const raw = await srv.call('GET', `/token/${t.uuid}/request/${row!.uuid}/raw`);
    expect(raw.buf.equals(big)).toBe(true);
  });

  it('node:http2: a body over MAX_BODY_BYTES gets 413 and the session goes on', async () => {
    const t = await srv.token();
    const session = http2.connect(srv.url);
    try {
      const r = await h2(srv.url, { ':method': 'POST', ':path': `/${t.uuid}` }, Buffer.alloc(1024 * 1024 + 1), session);
      expect(r.status).toBe(413);
      expect(JSON.parse(r.text).message).toMatch(/Body larger than/);
      expect(r.headers.connection).toBeUndefined();
      expect((await h2(srv.url, { ':path': `/${t.uuid}/after` }, undefined, session)).status).toBe(200);
    } finally {
      session.close();
    }
    expect((await stored(srv, t.uuid)).map((r) => new URL(r.url).pathname)).toEqual([`/${t.uuid}/after`]);
  });

  it('node:http2: a header block over MAX_HEADER_BYTES gets 431', async () => {
    const t = await srv.token();
    const r = await h2(srv.url, { ':path': `/${t.uuid}`, 'x-pad': 'p'.repeat(5000) });
    expect(r.status).toBe(431);
    expect(JSON.parse(r.text).message).toBe('Request headers larger than 4096 bytes');
    expect(await stored(srv, t.uuid)).toEqual([]);
  });

  it('node:http2: listen + set-response answers the waiting stream; connection headers are left out', async () => {
    const t = await srv.token({ listen: 5 });
    const pending = h2(srv.url, { ':method': 'POST', ':path': `/${t.uuid}` }, 'wait');
    let id: string | undefined;
    await expect.poll(async () => (id = (await srv.call('GET', `/token/${t.uuid}/request/latest`)).data?.uuid), { timeout: 5000 }).toBeTruthy();
    const headers = { 'X-Target': ['yes'], Connection: ['close'], 'Keep-Alive': ['timeout=5'], 'Proxy-Connection': ['keep-alive'], Upgrade: ['h2c'], 'Transfer-Encoding': ['chunked'] };
    const set = await srv.call('PUT', `/token/${t.uuid}/request/${id}/response`, { json: { status: 202, content: Buffer.from('set').toString('base64'), headers } });
    expect(set.status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(202);
    expect(r.text).toBe('set');
    expect(r.headers['x-target']).toBe('yes');
    for (const name of ['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'transfer-encoding']) expect(r.headers[name]).toBeUndefined();
  });

  it('node:http2: actions run (Basic Auth, then a response with connection headers)', async () => {
    const t = await srv.token({ actions: true });
    const actions = [
      { type: 'auth_basic', parameters: { username: 'u', password: 'p' } },
      { type: 'modify_response', parameters: { status: 203, content: 'acted', headers: 'X-Acted: 1\nProxy-Connection: keep-alive\nConnection: close' } },
    ];
    for (const json of actions) expect((await srv.call('POST', `/token/${t.uuid}/actions`, { json })).status).toBe(200);
    expect((await h2(srv.url, { ':path': `/${t.uuid}` })).status).toBe(401);
    const r = await h2(srv.url, { ':path': `/${t.uuid}`, authorization: `Basic ${Buffer.from('u:p').toString('base64')}` });
    expect([r.status, r.text, r.headers['x-acted'], r.headers['proxy-connection']]).toEqual([203, 'acted', '1', undefined]);
  });

  it('node:http2: a token with a timeout waits as over HTTP/1.1', async () => {
    const t = await srv.token({ timeout: 1 });
    const t0 = Date.now();
    expect((await h2(srv.url, { ':path': `/${t.uuid}` })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it('a stream the client cancels while its capture waits is stored, and the session goes on', async () => {
    const t = await srv.token({ timeout: 1 });
    const session = http2.connect(srv.url);
    try {
      const stream = session.request({ ':method': 'POST', ':path': `/${t.uuid}` });
      stream.on('error', () => {});
      stream.end('cancelled');
      await expect.poll(async () => (await stored(srv, t.uuid)).length, { timeout: 5000 }).toBe(1);
      const failedBefore = await failedCaptures(srv);
      stream.close(http2.constants.NGHTTP2_CANCEL);
      // The answer, a second later, goes to a closed stream: nothing fails.
      await new Promise((r) => setTimeout(r, 1300));
      expect((await h2(srv.url, { ':path': '/healthz' }, undefined, session)).status).toBe(200);
      expect(await failedCaptures(srv)).toBe(failedBefore);
    } finally {
      session.close();
    }
    expect((await stored(srv, t.uuid)).map((r) => r.content)).toEqual(['cancelled']);
  });

  it('a preface that arrives in pieces is still HTTP/2: the server sends its SETTINGS', async () => {
    const socket = net.connect(Number(new URL(srv.url).port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    await new Promise((r) => socket.once('connect', r));
    socket.write(HTTP2_PREFACE.subarray(0, 5));
    await new Promise((r) => setTimeout(r, 50));
    socket.write(HTTP2_PREFACE.subarray(5));
    // An empty SETTINGS frame from the client: 9-byte frame header, type 0x4.
    socket.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
    await expect.poll(() => Buffer.concat(received).length, { timeout: 5000 }).toBeGreaterThanOrEqual(9);
    expect(Buffer.concat(received)[3]).toBe(4);
    socket.destroy();
  });

  it('an HTTP/1.1 request that starts like the preface (P...) is HTTP/1.1', async () => {
    const t = await srv.token();
    const socket = net.connect(Number(new URL(srv.url).port), '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    await new Promise((r) => socket.once('connect', r));
    socket.write('P');
    await new Promise((r) => setTimeout(r, 50));
    socket.write(`OST /${t.uuid} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`);
    await new Promise((r) => socket.once('close', r));
    expect(data).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect((await stored(srv, t.uuid)).map((r) => [r.method, r.content])).toEqual([['POST', 'hi']]);
  });
});

describe('HTTPS with TLS_CERT and TLS_KEY (ALPN: h2, http/1.1)', () => {
  let srv: TestServer;
  const cert = path.join(tmp, 'cert.pem');
  const key = path.join(tmp, 'key.pem');
  beforeAll(async () => {
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost']);
    srv = await startTestServer({ TLS_CERT: cert, TLS_KEY: key });
  });
  afterAll(() => srv.close());

  it('the service URL is https', () => {
    expect(srv.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('curl --http2 negotiates h2 and is captured with an https URL', async () => {
    const t = (await run('curl', ['-sk', '--http2', '-X', 'POST', `${srv.url}/token`])).stdout;
    const uuid = JSON.parse(t).uuid as string;
    const { stdout } = await run('curl', ['-sk', '--http2', '-d', 'tls=1', '-w', '\n%{http_code} %{http_version}', `${srv.url}/${uuid}/s`]);
    expect(stdout.split('\n').at(-1)).toBe('200 2');
    const list = JSON.parse((await run('curl', ['-sk', '--http2', `${srv.url}/token/${uuid}/requests`])).stdout);
    expect(list.data[0]).toMatchObject({ url: `${srv.url}/${uuid}/s`, content: 'tls=1' });
  });

  it('curl --http1.1 over TLS is served too, and the page config says https', async () => {
    const { stdout } = await run('curl', ['-sk', '--http1.1', '-w', '\n%{http_code} %{http_version}', `${srv.url}/app/config.json`]);
    const [json, status] = stdout.split('\n');
    expect(status).toBe('200 1.1');
    expect(JSON.parse(json!).base_url).toBe(srv.url);
    expect(srv.url).toMatch(/^https:/);
  });

  it('node:http2 over TLS', async () => {
    const session = http2.connect(srv.url, { rejectUnauthorized: false });
    try {
      expect((await h2(srv.url, { ':path': '/healthz' }, undefined, session)).status).toBe(200);
    } finally {
      session.close();
    }
  });
});

describe('TLS settings', () => {
  it('TLS_CERT without TLS_KEY is refused at start-up', async () => {
    await expect(startTestServer({ TLS_CERT: '/nonexistent.pem' })).rejects.toThrow(/TLS_KEY: TLS_CERT and TLS_KEY must be set together/);
  });

  it('an unreadable file is named with its setting', async () => {
    await expect(startTestServer({ TLS_CERT: path.join(tmp, 'missing.pem'), TLS_KEY: path.join(tmp, 'missing.pem') })).rejects.toThrow(/^TLS_CERT=.*missing\.pem cannot be read \(ENOENT\)/);
  });

  it('a file that is no certificate is refused with both settings named', async () => {
    const junk = path.join(tmp, 'junk.pem');
    writeFileSync(junk, 'not a pem');
    await expect(startTestServer({ TLS_CERT: junk, TLS_KEY: junk })).rejects.toThrow(/^TLS_CERT=.* \/ TLS_KEY=.*: not a usable PEM certificate and private key pair/);
  });
});

describe('socket.io next to HTTP/2', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it("its polling transport answers over HTTP/2 (a browser's first request)", async () => {
    const r = await h2(srv.url, { ':path': '/socket.io/?EIO=4&transport=polling' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^0\{"sid":"/);
  });
});

describe('shutdown with HTTP/2 sessions open', () => {
  it('an idle session gets GOAWAY and does not hold the server open; a stream in flight finishes', async () => {
    const srv = await startTestServer({ SHUTDOWN_GRACE_MS: '10000' });
    const t = await srv.token({ timeout: 1, default_content: 'finished' });
    const idle = http2.connect(srv.url);
    const busy = http2.connect(srv.url);
    try {
      expect((await h2(srv.url, { ':path': '/healthz' }, undefined, idle)).status).toBe(200);
      const inFlight = h2(srv.url, { ':path': `/${t.uuid}` }, undefined, busy);
      await new Promise((r) => setTimeout(r, 200));
      const t0 = Date.now();
      await srv.close();
      // The capture waits its 1 s timeout, then the server is closed: long before the grace period.
      expect(Date.now() - t0).toBeLessThan(5000);
      const r = await inFlight;
      expect([r.status, r.text]).toEqual([200, 'finished']);
    } finally {
      idle.destroy();
      busy.destroy();
    }
  });
});
