// Forwarding a stored request to a URL: against a local node:http server, through the outbound
// policy, authorised like the token's API.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let s: TestServer;
let target: http.Server;
let targetUrl = '';
const seen: Seen[] = [];

beforeAll(async () => {
  s = await startTestServer();
  target = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/binary') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        return res.end(Buffer.from([0xff, 0xfe, 0x00]));
      }
      if (req.url === '/moved') {
        res.writeHead(302, { Location: '/elsewhere' });
        return res.end();
      }
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Target': 'yes' });
      res.end(JSON.stringify({ got: Buffer.concat(chunks).toString('utf8') }));
    });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => target?.close(r));
});

async function captured(token: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) {
  const sent = await s.call(init.method ?? 'POST', `/${token}/hook?x=1`, { headers: init.headers, body: init.body });
  return sent.headers.get('x-request-id')!;
}

describe('POST /token/{id}/request/{id}/forward', () => {
  it('sends a body decoded at capture decoded, without its Content-Encoding', async () => {
    const t = await s.token();
    const id = await captured(t.uuid, { headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }, body: gzipSync('was compressed') });
    seen.length = 0;
    const r = await s.call('POST', `/token/${t.uuid}/request/${id}/forward`, { json: { url: `${targetUrl}/in` } });
    expect(r.status, r.text).toBe(200);
    expect(seen[0]!.body).toBe('was compressed');
    expect(seen[0]!.headers['content-encoding']).toBeUndefined();
    expect(seen[0]!.headers['content-type']).toBe('text/plain');
  });

  it("sends the request's method, headers and body and answers the target's response", async () => {
    const t = await s.token();
    const id = await captured(t.uuid, { headers: { 'Content-Type': 'application/json', 'X-Signature': 'abc' }, body: '{"order":7}' });
    seen.length = 0;
    const r = await s.call('POST', `/token/${t.uuid}/request/${id}/forward`, { json: { url: `${targetUrl}/in` } });
    expect(r.status, r.text).toBe(200);
    expect(r.data).toMatchObject({ status: 201, body: '{"got":"{\\"order\\":7}"}', body_encoding: 'utf8', truncated: false, method: 'POST', url: `${targetUrl}/in` });
    expect(r.data.headers['x-target']).toEqual(['yes']);
    expect(typeof r.data.time).toBe('number');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/in', body: '{"order":7}' });
    expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-signature': 'abc', host: new URL(targetUrl).host, 'content-length': '11' });
  });

  it('uses the given method, answers a binary body in base64, and shows a redirect as it came', async () => {
    const t = await s.token();
    const id = await captured(t.uuid, { body: 'payload' });
    seen.length = 0;
    const put = await s.call('POST', `/token/${t.uuid}/request/${id}/forward`, { json: { url: `${targetUrl}/binary`, method: 'put' } });
    expect(put.data).toMatchObject({ status: 200, body: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'), body_encoding: 'base64', size: 3, method: 'PUT' });
    expect(seen[0]).toMatchObject({ method: 'PUT', body: 'payload' });
    const moved = await s.call('POST', `/token/${t.uuid}/request/latest/forward`, { json: { url: `${targetUrl}/moved` } });
    expect(moved.data).toMatchObject({ status: 302, headers: { location: ['/elsewhere'] } });
  });

  it('refuses an address the outbound policy does not allow with a 422 naming it', async () => {
    const t = await s.token();
    const id = await captured(t.uuid);
    const r = await s.call('POST', `/token/${t.uuid}/request/${id}/forward`, { json: { url: 'http://169.254.169.254/latest/meta-data' } });
    expect(r.status).toBe(422);
    expect(r.data.message).toMatch(/169\.254\.169\.254/);
    expect(r.data.errors.url[0]).toMatch(/refused.*metadata/);
  });

  it('refuses bad input with 422 and unknown requests with 404', async () => {
    const t = await s.token();
    const id = await captured(t.uuid);
    for (const body of [{}, { url: 'ftp://example.test/' }, { url: 'not a url' }, { url: `${targetUrl}/`, method: 'GET /x' }]) {
      const r = await s.call('POST', `/token/${t.uuid}/request/${id}/forward`, { json: body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.data.errors)).toEqual([Object.keys(body).length === 2 ? 'method' : 'url']);
    }
    const missing = await s.call('POST', `/token/${t.uuid}/request/00000000-0000-4000-8000-000000000000/forward`, { json: { url: `${targetUrl}/` } });
    expect(missing.status).toBe(404);
  });

  it('answers 502 when nothing listens at the target', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const t = await s.token();
    const id = await captured(t.uuid);
    const r = await s.call('POST', `/token/${t.uuid}/request/${id}/forward`, { json: { url: `http://127.0.0.1:${port}/` } });
    expect(r.status).toBe(502);
    expect(r.data.message).toMatch(/ECONNREFUSED|failed/);
  });

  it("is authorised like the token's API", async () => {
    const owner = await s.user(true);
    const other = await s.user(true);
    const t = await s.token({}, owner.key);
    const id = await captured(t.uuid);
    const url = `/token/${t.uuid}/request/${id}/forward`;
    expect((await s.call('POST', url, { json: { url: `${targetUrl}/` } })).status).toBe(401);
    expect((await s.call('POST', url, { json: { url: `${targetUrl}/` }, key: other.key })).status).toBe(403);
    expect((await s.call('POST', url, { json: { url: `${targetUrl}/` }, key: owner.key })).status).toBe(200);
  });
});
