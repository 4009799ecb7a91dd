// The older `send_request` action: same sending and result variables as `http`, fewer options.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { sendRequest } from '../src/send-request.js';
import { freePort, outboundHttp, startServer, type TestHttpServer } from './helpers.js';

let server: TestHttpServer;

beforeAll(async () => {
  server = await startServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`got ${req.method} ${req.body.toString()}`);
  });
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  server.received.length = 0;
});

describe('send_request', () => {
  it('sends the content with the headers and sets the result variables', async () => {
    const r = await runAction(
      sendRequest,
      { url: `${server.url}/old?q=$request.query.q$`, method: 'put', content: 'id=$id$', headers: 'Content-Type: text/plain\nX-Id: $id$', variable_name: 'res' },
      { vars: { id: '7' }, request: { url: 'http://localhost:8084/t?q=abc', query: { q: 'abc' } }, services: { http: outboundHttp() } },
    );
    expect(r.errors).toEqual([]);
    const [got] = server.received;
    expect(got).toMatchObject({ method: 'PUT', url: '/old?q=abc' });
    expect(got.body.toString()).toBe('id=7');
    expect(got.headers).toMatchObject({ 'content-type': 'text/plain', 'x-id': '7' });
    expect(r.vars).toMatchObject({ 'res.status': '200', 'res.content': 'got PUT id=7', 'res.url': `${server.url}/old?q=abc` });
    expect(JSON.parse(r.vars['res.headers']!)['content-type']).toBe('text/plain');
    expect(r.output).toEqual([`PUT ${server.url}/old?q=abc responded 200 in 0 ms, 12 bytes; result in $res.status$, $res.content$`]);
  });

  it('defaults to the http prefix, GET without content and POST with it', async () => {
    const a = await runAction(sendRequest, { url: server.url }, { services: { http: outboundHttp() } });
    await runAction(sendRequest, { url: server.url, content: 'x', method: null }, { services: { http: outboundHttp() } });
    expect(a.vars['http.content']).toBe('got GET ');
    expect(server.received.map((g) => g.method)).toEqual(['GET', 'POST']);
  });

  it('sends binary content as its bytes', async () => {
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const r = await runAction(sendRequest, { url: server.url, content: 'head:$request.content$' }, { rawBody: allBytes, services: { http: outboundHttp() } });
    expect(r.errors).toEqual([]);
    expect(server.received[0]!.body.equals(Buffer.concat([Buffer.from('head:'), allBytes]))).toBe(true);
  });

  it('stores a failure in $<prefix>.error$', async () => {
    const port = await freePort();
    const r = await runAction(sendRequest, { url: `http://127.0.0.1:${port}/` }, { services: { http: outboundHttp() } });
    expect(r.errors).toEqual([]);
    expect(r.vars['http.error']).toMatch(/ECONNREFUSED/);
  });

  it('allows a timeout up to 30 s and passes it in ms, with skip_ssl_verification', async () => {
    const http = stubHttp();
    await runAction(sendRequest, { url: 'https://example.test/', timeout: '30', skip_ssl_verification: true }, { services: { http } });
    await runAction(sendRequest, { url: 'https://example.test/' }, { services: { http } });
    expect(http.sent.map((s) => [s.timeoutMs, s.insecureTls])).toEqual([
      [30_000, true],
      [undefined, undefined],
    ]);
  });

  it('accepts the API forms and refuses bad parameters', () => {
    const ok = (p: Record<string, unknown>) => expect(() => validateParams(sendRequest, p)).not.toThrow();
    ok({ url: 'https://x.test', content: null, method: null, headers: null, skip_ssl_verification: null, timeout: null });
    ok({ url: 'https://x.test', method: 'OPTIONS', timeout: 30, variable_name: 'r' });
    expect(() => validateParams(sendRequest, {})).toThrow(/parameters.url: is required/);
    expect(() => validateParams(sendRequest, { url: 'https://x.test', method: 'PATCH' })).toThrow(/parameters.method/);
    expect(() => validateParams(sendRequest, { url: 'https://x.test', timeout: 31 })).toThrow(/parameters.timeout: must be between 0 and 30 seconds/);
    expect(() => validateParams(sendRequest, { url: 'https://x.test', headers: 'oops' })).toThrow(/parameters.headers/);
    expect(() => validateParams(sendRequest, { url: 'https://x.test', skip_ssl_verification: 'perhaps' })).toThrow(/parameters.skip_ssl_verification/);
  });
});
