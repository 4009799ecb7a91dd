// Nothing sent to a capture URL goes unanswered: every odd-but-valid HTTP/1.x request form, sent
// over a raw socket (or by curl), is stored and answered. Upgrade requests are captures like any
// other; only socket.io's own path is upgraded.
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { io as ioV4 } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const DOMAIN = 'hooks.example.test';

let srv: TestServer;
let port: number;
beforeAll(async () => {
  srv = await startTestServer({ CAPTURE_DOMAIN: DOMAIN });
  port = Number(new URL(srv.url).port);
});
afterAll(() => srv.close());

/** Writes `raw` in one write and reads until the server closes the connection (or `ms` pass). */
function exchange(raw: string, ms = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, ms);
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

/** The status lines of every response in `text`, in order. */
const statusLines = (text: string) => text.match(/^HTTP\/1\.[01] \d{3}[^\r]*/gm) ?? [];

async function stored(token: string): Promise<Array<Record<string, any>>> {
  const r = await srv.call('GET', `/token/${token}/requests?sorting=oldest&per_page=50`);
  expect(r.status).toBe(200);
  return r.data.data;
}

describe('Upgrade requests to a capture URL are captures', () => {
  it('a WebSocket handshake is stored with its headers and answered with the token response', async () => {
    const t = await srv.token({ default_status: 202, default_content: 'not a socket' });
    const text = await exchange(
      `GET /${t.uuid}/ws?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      1500,
    );
    expect(statusLines(text)).toEqual(['HTTP/1.1 202 Accepted']);
    expect(text.endsWith('not a socket')).toBe(true);
    const [r] = await stored(t.uuid);
    expect(r).toMatchObject({ method: 'GET', url: `http://127.0.0.1:${port}/${t.uuid}/ws?x=1` });
    expect(r!.headers).toMatchObject({ upgrade: ['websocket'], connection: ['Upgrade'], 'sec-websocket-key': ['dGhlIHNhbXBsZSBub25jZQ=='] });
  });

  it('Upgrade: foo with a body keeps the body, and the connection serves the next request', async () => {
    const t = await srv.token();
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.write(`POST /${t.uuid}/one HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: foo\r\nContent-Length: 5\r\n\r\nhello`);
    // A client that asked for an upgrade sends more only once it has the answer (RFC 9110 §7.8).
    await expect.poll(() => statusLines(data), { timeout: 5000 }).toEqual(['HTTP/1.1 200 OK']);
    socket.write(`GET /${t.uuid}/two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await new Promise((r) => socket.on('close', r));
    expect(statusLines(data)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    const rows = await stored(t.uuid);
    expect(rows.map((r) => [r.method, r.url, r.content])).toEqual([
      ['POST', `http://x/${t.uuid}/one`, 'hello'],
      ['GET', `http://x/${t.uuid}/two`, ''],
    ]);
  });

  it('Upgrade on a capture subdomain is captured too', async () => {
    const t = await srv.token();
    const text = await exchange(`GET /deep HTTP/1.1\r\nHost: ${t.uuid}.${DOMAIN}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`, 1500);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    expect((await stored(t.uuid)).map((r) => r.url)).toEqual([`http://${t.uuid}.${DOMAIN}/deep`]);
  });

  it('curl --http2 (Upgrade: h2c) is answered over HTTP/1.1 and captured', async () => {
    const t = await srv.token({ default_content: 'h2c?' });
    const { stdout } = await run('curl', ['-s', '--http2', '-d', 'a=1', '-w', '\n%{http_code} %{http_version}', `${srv.url}/${t.uuid}`]);
    expect(stdout).toBe('h2c?\n200 1.1');
    const [r] = await stored(t.uuid);
    expect(r).toMatchObject({ method: 'POST', content: 'a=1', request: { a: '1' } });
    expect(r!.headers.upgrade).toEqual(['h2c']);
  });

  it('an API route with Upgrade answers as without the header', async () => {
    const t = await srv.token();
    const text = await exchange(`GET /token/${t.uuid} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).uuid).toBe(t.uuid);
  });

  it('socket.io is still upgraded to a WebSocket on its own path', async () => {
    const socket = ioV4(srv.url, { transports: ['websocket'], reconnection: false });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('connect_error', reject);
      });
      expect(socket.io.engine.transport.name).toBe('websocket');
    } finally {
      socket.close();
    }
  });
});

describe('odd-but-valid HTTP/1.x request forms are stored and answered', () => {
  it('Expect: 100-continue gets 100 Continue, then the capture', async () => {
    const t = await srv.token();
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.write(`POST /${t.uuid} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\nConnection: close\r\n\r\n`);
    // The body goes only after the interim answer, as a client that waits for it sends it.
    await expect.poll(() => data, { timeout: 5000 }).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    socket.write('abc');
    await new Promise((r) => socket.on('close', r));
    expect(statusLines(data)).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 200 OK']);
    expect((await stored(t.uuid)).map((r) => r.content)).toEqual(['abc']);
  });

  it('OPTIONS * (asterisk-form) on a capture subdomain is captured at /', async () => {
    const t = await srv.token();
    const text = await exchange(`OPTIONS * HTTP/1.1\r\nHost: ${t.uuid}.${DOMAIN}\r\nConnection: close\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    expect((await stored(t.uuid)).map((r) => [r.method, r.url])).toEqual([['OPTIONS', `http://${t.uuid}.${DOMAIN}/`]]);
  });

  it('OPTIONS * to the service itself is answered with what / allows', async () => {
    const text = await exchange(`OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    expect(text).toMatch(/\r\nAllow: [^\r]*GET/);
  });

  it('HTTP/1.0 without keep-alive is answered and the connection closed', async () => {
    const t = await srv.token();
    const text = await exchange(`GET /${t.uuid}/ten HTTP/1.0\r\nHost: x\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    expect((await stored(t.uuid)).map((r) => r.url)).toEqual([`http://x/${t.uuid}/ten`]);
  });

  it('HTTP/1.0 with keep-alive serves a second request on the same connection', async () => {
    const t = await srv.token();
    const text = await exchange(`GET /${t.uuid}/a HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\nGET /${t.uuid}/b HTTP/1.0\r\nHost: x\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    expect((await stored(t.uuid)).map((r) => r.url)).toEqual([`http://x/${t.uuid}/a`, `http://x/${t.uuid}/b`]);
  });

  it('an absolute-form target (as sent to a proxy) is captured by its path', async () => {
    const t = await srv.token();
    const text = await exchange(`GET http://127.0.0.1:${port}/${t.uuid}/abs?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    const [r] = await stored(t.uuid);
    expect(r).toMatchObject({ url: `http://127.0.0.1:${port}/${t.uuid}/abs?q=1`, query: { q: '1' } });
  });

  it('a chunked body with trailers is stored whole', async () => {
    const t = await srv.token();
    const text = await exchange(`POST /${t.uuid} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\nConnection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 11\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
    expect((await stored(t.uuid)).map((r) => r.content)).toEqual(['hello world']);
  });

  it('three pipelined requests in one write are each stored and answered, in order', async () => {
    const t = await srv.token();
    const text = await exchange(
      `POST /${t.uuid}/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na` + `GET /${t.uuid}/2 HTTP/1.1\r\nHost: x\r\n\r\n` + `PUT /${t.uuid}/3 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nConnection: close\r\n\r\nc`,
    );
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    expect([...text.matchAll(/X-Request-Id: (\S+)/g)]).toHaveLength(3);
    expect((await stored(t.uuid)).map((r) => [r.method, r.url, r.content])).toEqual([
      ['POST', `http://x/${t.uuid}/1`, 'a'],
      ['GET', `http://x/${t.uuid}/2`, ''],
      ['PUT', `http://x/${t.uuid}/3`, 'c'],
    ]);
  });
});
