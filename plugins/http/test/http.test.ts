// The `http` action against a real local server: what the server receives in every mode, auth,
// result variables, failures, retries and timeouts.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionRegistry, runChain } from '../../../test/helpers/host.js';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import { fakeClock, fetchHttpClient, runAction, type RunActionOptions, stubHttp, TEST_TOKEN, testRequest, testServices, validateParams } from '@capture/sdk/testing';
import { httpRequest } from '../src/http.js';
import { freePort, outboundHttp, selfSignedCert, startServer, type Handler, type TestHttpServer } from './helpers.js';

let handler: Handler | undefined;
let server: TestHttpServer;

beforeAll(async () => {
  server = await startServer((req, res, n) => {
    if (handler) return handler(req, res, n);
    res.writeHead(201, { 'Content-Type': 'application/json', 'X-Echo': 'yes' });
    res.end('{"ok":true}');
  });
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  handler = undefined;
  server.received.length = 0;
});

function run(params: Record<string, unknown>, options: RunActionOptions = {}) {
  return runAction(httpRequest, params, { ...options, services: { http: outboundHttp(), ...options.services } });
}

describe('http: modes', () => {
  it('text mode sends the content as is, with the given headers and no Content-Type of its own', async () => {
    const r = await run(
      {
        url: `${server.url}/hook?x=$who$`,
        method: 'PUT',
        mode: 'text',
        content: '<order id="$who$">ä</order>',
        headers: 'X-One: 1\nX-Two:  two words \r\n\nx-one: again',
      },
      { vars: { who: '42' } },
    );
    expect(r.errors).toEqual([]);
    const [got] = server.received;
    expect(got.method).toBe('PUT');
    expect(got.url).toBe('/hook?x=42');
    expect(got.body.toString('utf8')).toBe('<order id="42">ä</order>');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength('<order id="42">ä</order>')));
    expect(got.headers['x-one']).toBe('1, again');
    expect(got.headers['x-two']).toBe('two words');
    expect(got.headers['content-type']).toBeUndefined();
  });

  it('sets the result variables and logs method, URL, status and time', async () => {
    const r = await run({ url: `${server.url}/r`, content: 'hi' });
    expect(r.vars['http.status']).toBe('201');
    expect(r.vars['http.content']).toBe('{"ok":true}');
    expect(JSON.parse(r.vars['http.headers']!)).toMatchObject({ 'content-type': 'application/json', 'x-echo': 'yes' });
    expect(r.vars['http.url']).toBe(`${server.url}/r`);
    expect(r.vars['http.error']).toBeUndefined();
    expect(r.output).toEqual([`POST ${server.url}/r responded 201 in 0 ms, 11 bytes; result in $http.status$, $http.content$`]);
  });

  it('the result is usable by JSON path in later templates, under a chosen prefix', async () => {
    const r = await run({ url: server.url, variable_name: '$resp$' });
    expect(r.vars['resp.status']).toBe('201');
    expect(r.variables['resp.content']).toBe('{"ok":true}');
  });

  it('without a method: GET without a body, POST with one', async () => {
    await run({ url: server.url });
    await run({ url: server.url, content: 'x', method: null });
    await run({ url: server.url, mode: 'json', method: '' });
    expect(server.received.map((g) => g.method)).toEqual(['GET', 'POST', 'POST']);
    expect(server.received[0]!.body.length).toBe(0);
  });

  it('accepts every method of the API, in any case', async () => {
    for (const method of ['post', 'GET', 'Options', 'PUT', 'DELETE', 'PATCH']) await run({ url: server.url, method, content: 'b' });
    expect(server.received.map((g) => g.method)).toEqual(['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);
  });

  it('json mode sets Content-Type: application/json unless the headers give one', async () => {
    await run({ url: server.url, mode: 'json', content: '{"a": "$request.content$"}' }, { request: { content: 'b' } });
    await run({ url: server.url, mode: 'json', content: '{}', headers: 'Content-Type: application/vnd.api+json' });
    expect(server.received[0]!.headers['content-type']).toBe('application/json');
    expect(server.received[0]!.body.toString()).toBe('{"a": "b"}');
    expect(server.received[0]!.method).toBe('POST');
    expect(server.received[1]!.headers['content-type']).toBe('application/vnd.api+json');
  });

  it('urlencoded mode sends the pairs form-encoded', async () => {
    await run(
      {
        url: server.url,
        mode: 'urlencoded',
        urlencoded: [
          { name: 'a', value: '1' },
          { name: 'b c', value: 'x y&z=é' },
          { name: 'empty', value: '' },
          { name: 'who', value: '$request.query.who$' },
        ],
      },
      { request: { query: { who: 'ann' }, url: 'http://localhost:8084/t?who=ann' } },
    );
    const [got] = server.received;
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(got.body.toString()).toBe('a=1&b+c=x+y%26z%3D%C3%A9&empty=&who=ann');
  });

  it('multipart mode sends fields and files, filename and content-type optional', async () => {
    await run(
      {
        url: server.url,
        mode: 'multipart',
        multipart: [
          { name: 'field', content: 'value $x$' },
          { name: 'file', filename: 'a "b".txt', 'content-type': 'text/plain', content: 'line1\nline2' },
          { name: 'bare', filename: 'raw.bin', content: null },
          { name: 'typed', 'content-type': 'application/json', content: '{}' },
          { name: '', content: 'skipped: no name' },
        ],
      },
      { vars: { x: 'X' } },
    );
    const [got] = server.received;
    const m = /^multipart\/form-data; boundary=(.+)$/.exec(String(got.headers['content-type']));
    expect(m).not.toBeNull();
    const b = m![1];
    expect(got.body.toString()).toBe(
      `--${b}\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue X\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a %22b%22.txt"\r\nContent-Type: text/plain\r\n\r\nline1\nline2\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="bare"; filename="raw.bin"\r\n\r\n\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="typed"\r\nContent-Type: application/json\r\n\r\n{}\r\n` +
        `--${b}--\r\n`,
    );
  });

  it('multipart mode keeps its own Content-Type (the boundary must match the body)', async () => {
    await run({ url: server.url, mode: 'multipart', multipart: [{ name: 'a', content: '1' }], headers: 'Content-Type: text/plain\nX-Extra: 1' });
    expect(String(server.received[0]!.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(server.received[0]!.headers['x-extra']).toBe('1');
  });
});

describe('http: forward mode', () => {
  const captured: RunActionOptions = {
    request: {
      method: 'PATCH',
      url: 'http://localhost:8084/11111111-1111-4111-8111-111111111111/sub?a=1&b=two%20words&a=2',
      headers: {
        host: ['localhost:8084'],
        'content-length': ['4'],
        'content-type': ['application/octet-stream'],
        'accept-encoding': ['gzip'],
        connection: ['keep-alive'],
        'x-multi': ['one', 'two'],
        'x-token': ['captured'],
        'user-agent': ['capture-test'],
      },
    },
    rawBody: Buffer.from([0x00, 0xff, 0x10, 0x80]),
  };

  it('forwards the method, query string, headers and body of the capture', async () => {
    const r = await run({ url: `${server.url}/target?own=1`, mode: 'forward', method: '' }, captured);
    expect(r.errors).toEqual([]);
    const [got] = server.received;
    expect(got.method).toBe('PATCH');
    expect(got.url).toBe('/target?own=1&a=1&b=two%20words&a=2');
    expect(got.body.equals(Buffer.from([0x00, 0xff, 0x10, 0x80]))).toBe(true);
    expect(got.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'x-multi': 'one, two',
      'x-token': 'captured',
      'user-agent': 'capture-test',
      host: server.url.replace('http://', ''),
      'content-length': '4',
    });
    expect(got.headers['accept-encoding']).toBeUndefined();
  });

  it('overrides the method and adds headers, replacing captured ones of the same name', async () => {
    await run({ url: `${server.url}/target`, mode: 'forward', method: 'PUT', headers: 'X-Token: mine\nX-Added: yes', content: 'ignored' }, captured);
    const [got] = server.received;
    expect(got.method).toBe('PUT');
    expect(got.url).toBe('/target?a=1&b=two%20words&a=2');
    expect(got.headers['x-token']).toBe('mine');
    expect(got.headers['x-added']).toBe('yes');
    expect(got.headers['x-multi']).toBe('one, two');
    expect(got.body.length).toBe(4);
  });

  it('forwards a GET without a query string or body', async () => {
    await run({ url: `${server.url}/t`, mode: 'forward' }, { request: { method: 'GET', url: 'http://localhost:8084/x', headers: { 'x-a': ['1'] } }, rawBody: Buffer.alloc(0) });
    const [got] = server.received;
    expect(got).toMatchObject({ method: 'GET', url: '/t' });
    expect(got.body.length).toBe(0);
    expect(got.headers['x-a']).toBe('1');
  });
});

describe('http: authentication and TLS', () => {
  it('basic auth sends an Authorization header', async () => {
    await run({ url: server.url, auth: { mode: 'basic', username: 'ann', password: 'pä:ss' } });
    expect(server.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ann:pä:ss').toString('base64')}`);
  });

  it('bearer auth sends the token as a Bearer Authorization header, replacing one given in headers', async () => {
    const r = await run({ url: server.url, headers: 'Authorization: Basic old', auth: { mode: 'bearer', token: '$api_token$' } }, { vars: { api_token: 'tok-123.abc' } });
    expect(server.received[0]!.headers.authorization).toBe('Bearer tok-123.abc');
    expect(r.vars['http.status']).toMatch(/^2\d\d$/);
  });

  it('auth without a mode (or an empty list) sends none', async () => {
    await run({ url: server.url, auth: { mode: null, username: 'a', password: 'b' } });
    await run({ url: server.url, auth: [] });
    expect(server.received.map((g) => g.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('digest auth answers the challenge and gets through', async () => {
    const md5 = (s: string) => createHash('md5').update(s).digest('hex');
    handler = (req, res) => {
      const header = String(req.headers.authorization ?? '');
      if (!header.startsWith('Digest ')) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="old", Digest realm="api@test", qop="auth,auth-int", nonce="n0nce", opaque="op", algorithm=MD5' });
        return void res.end('denied');
      }
      const f = Object.fromEntries([...header.slice(7).matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1], m[2] ?? m[3]]));
      const ha1 = md5(`ann:api@test:secret`);
      const ha2 = md5(`${req.method}:${req.url}`);
      const ok = f.uri === req.url && f.opaque === 'op' && f.qop === 'auth' && f.response === md5(`${ha1}:n0nce:${f.nc}:${f.cnonce}:auth:${ha2}`);
      res.writeHead(ok ? 200 : 403);
      res.end(ok ? 'welcome' : 'bad digest');
    };
    const r = await run({ url: `${server.url}/private?q=1`, method: 'POST', content: 'body', auth: { mode: 'digest', username: 'ann', password: 'secret' } });
    expect(r.vars['http.status']).toBe('200');
    expect(r.vars['http.content']).toBe('welcome');
    expect(server.received).toHaveLength(2);
    expect(server.received[1]!.body.toString()).toBe('body');
  });

  it('NTLM to a server that does not ask for it: the negotiate request is the answer (ntlm.test.ts does the handshake)', async () => {
    const r = await run({ url: server.url, auth: { mode: 'ntlm', username: 'a', password: 'b' } });
    expect(r.errors).toEqual([]);
    expect(r.vars['http.status']).toBe('201');
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers.authorization).toMatch(/^NTLM TlRMTVNTUAAB/);
  });

  it('skip_ssl_verification accepts a self-signed certificate', async () => {
    const tls = await startServer(undefined, selfSignedCert());
    try {
      const strict = await run({ url: `${tls.url}/s` });
      expect(strict.errors).toEqual([]);
      expect(strict.vars['http.error']).toMatch(/self[- ]signed/i);
      const skipped = await run({ url: `${tls.url}/s`, skip_ssl_verification: 'true' });
      expect(skipped.vars['http.status']).toBe('200');
      expect(skipped.vars['http.error']).toBeUndefined();
      expect(tls.received).toHaveLength(1);
    } finally {
      await tls.close();
    }
  });
});

describe('http: failures, redirects and timeouts', () => {
  it('connection refused sets $http.error$, not an action error', async () => {
    const port = await freePort();
    const r = await run({ url: `http://127.0.0.1:${port}/x`, content: 'a' });
    expect(r.errors).toEqual([]);
    expect(r.vars['http.error']).toMatch(/ECONNREFUSED/);
    expect(r.vars['http.url']).toBe(`http://127.0.0.1:${port}/x`);
    expect(r.vars['http.status']).toBeUndefined();
    expect(r.output).toEqual([`POST http://127.0.0.1:${port}/x failed after 0 ms: ${r.vars['http.error']}; error in $http.error$`]);
  });

  it('names the refused connection with the plain fetch client too', async () => {
    const port = await freePort();
    const r = await runAction(httpRequest, { url: `http://127.0.0.1:${port}/x` }, { services: { http: fetchHttpClient } });
    expect(r.vars['http.error']).toMatch(/fetch failed: .*ECONNREFUSED/);
  });

  it('an invalid URL is a failure of the request, not retried', async () => {
    const r = await run({ url: 'not a url', retry: { enabled: true } });
    expect(r.vars['http.error']).toBe('Invalid URL: "not a url"');
    expect(r.output).toHaveLength(1);
    const ftp = await run({ url: 'ftp://example.com/x' });
    expect(ftp.vars['http.error']).toBe('Only http and https URLs can be requested, not ftp:');
  });

  it('an error status is a response, not a failure', async () => {
    handler = (_req, res) => void res.writeHead(404).end('nope');
    const r = await run({ url: server.url });
    expect(r.vars).toMatchObject({ 'http.status': '404', 'http.content': 'nope' });
    expect(r.vars['http.error']).toBeUndefined();
  });

  it('$http.url$ is the URL after redirects', async () => {
    handler = (req, res) => {
      if (req.url === '/start') return void res.writeHead(302, { Location: '/final?x=1' }).end();
      res.writeHead(200).end(`at ${req.url}`);
    };
    const r = await run({ url: `${server.url}/start` });
    expect(r.vars['http.url']).toBe(`${server.url}/final?x=1`);
    expect(r.vars['http.content']).toBe('at /final?x=1');
    expect(r.output[0]).toContain(`(from ${server.url}/final?x=1)`);
  });

  it('timeout stops a slow request and sets the error', async () => {
    handler = (_req, res) => void setTimeout(() => res.writeHead(200).end('late'), 3000);
    const started = Date.now();
    const r = await run({ url: server.url, timeout: '0.3' });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(r.errors).toEqual([]);
    expect(r.vars['http.error']).toMatch(/Timed out after 0.3 s/);
  });

  it('passes the timeout in ms, and none when not given (core applies its default)', async () => {
    const http = stubHttp();
    await runAction(httpRequest, { url: 'http://example.test/', timeout: 15 }, { services: { http } });
    await runAction(httpRequest, { url: 'http://example.test/', timeout: null }, { services: { http } });
    await runAction(httpRequest, { url: 'http://example.test/' }, { services: { http } });
    expect(http.sent.map((s) => s.timeoutMs)).toEqual([15_000, undefined, undefined]);
    expect(http.sent.map((s) => 'timeoutMs' in s)).toEqual([true, false, false]);
    expect(http.sent[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(http.sent[0]!.insecureTls).toBeUndefined();
  });

  it('the chain budget aborts a request that outlives it', async () => {
    handler = (_req, res) => void setTimeout(() => res.writeHead(200).end('late'), 3000);
    const started = Date.now();
    const r = await run({ url: server.url }, { budgetMs: 300 });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(r.errors[0]).toMatch(/time budget/);
  });
});

describe('http: retry', () => {
  it('retries non-matching statuses with the wildcard, one output line per retry', async () => {
    handler = (_req, res, n) => void res.writeHead(n < 3 ? 503 : 204).end();
    const clock = fakeClock();
    const t0 = clock.now();
    const r = await run({ url: server.url, retry: { enabled: true, require_status: '20*' } }, { services: { clock } });
    expect(server.received).toHaveLength(3);
    expect(r.vars['http.status']).toBe('204');
    expect(r.vars['http.error']).toBeUndefined();
    expect(r.output).toEqual([
      'Retry 1 of 3 in 1 s: status 503 does not match 20*',
      'Retry 2 of 3 in 1 s: status 503 does not match 20*',
      `GET ${server.url}/ responded 204 in 2000 ms after 2 retries, 0 bytes; result in $http.status$, $http.content$`,
    ]);
    expect(clock.now() - t0).toBe(2000);
  });

  it('gives up after the retries, keeps the last response and sets the error', async () => {
    handler = (_req, res, n) => void res.writeHead(500).end(`attempt ${n}`);
    const r = await run({ url: server.url, retry: { enabled: 'true', retries: '2', delay: '0.5', require_status: '200' } });
    expect(server.received).toHaveLength(3);
    expect(r.vars).toMatchObject({ 'http.status': '500', 'http.content': 'attempt 3', 'http.error': 'Status 500 does not match the required status 200' });
    expect(r.output.filter((l) => l.startsWith('Retry'))).toEqual(['Retry 1 of 2 in 0.5 s: status 500 does not match 200', 'Retry 2 of 2 in 0.5 s: status 500 does not match 200']);
    expect(r.errors).toEqual([]);
  });

  it('retries network errors: 3 retries (4 requests) by default', async () => {
    handler = (req, res, n) => {
      if (n <= 3) return void res.socket?.destroy();
      res.writeHead(200).end('finally');
    };
    const r = await run({ url: server.url, retry: { enabled: true } });
    expect(server.received).toHaveLength(4);
    expect(r.vars['http.content']).toBe('finally');
    expect(r.vars['http.error']).toBeUndefined();
    expect(r.output.filter((l) => l.startsWith('Retry '))).toHaveLength(3);
  });

  it('retries timeouts', async () => {
    handler = (_req, res, n) => (n === 1 ? void setTimeout(() => res.writeHead(200).end('late'), 2000) : void res.writeHead(200).end('quick'));
    const r = await run({ url: server.url, timeout: 0.3, retry: { enabled: true, retries: 1 } });
    expect(r.vars['http.content']).toBe('quick');
    expect(r.output[0]).toMatch(/^Retry 1 of 1 in 1 s: Timed out/);
  });

  it('does not retry without enabled, or any status without require_status', async () => {
    handler = (_req, res) => void res.writeHead(500).end();
    await run({ url: server.url, retry: { enabled: false, require_status: '200' } });
    await run({ url: server.url, retry: { enabled: true } });
    expect(server.received).toHaveLength(2);
  });

  it('stops retrying when the delay would outlast the time budget', async () => {
    handler = (_req, res) => void res.writeHead(500).end();
    const r = await run({ url: server.url, retry: { enabled: true, retries: 5, require_status: '2**' } }, { budgetMs: 2500 });
    expect(server.received).toHaveLength(3);
    expect(r.output.at(-2)).toBe("Not retrying (status 500 does not match 2**): the actions' time budget would run out");
    expect(r.vars['http.error']).toBe('Status 500 does not match the required status 2**');
  });

  it('matches status patterns: * any digits, x one digit, lists', async () => {
    const { statusMatches } = await import('../src/send.js');
    expect([200, 204, 209].every((s) => statusMatches('20*', s))).toBe(true);
    expect([210, 199, 301].some((s) => statusMatches('20*', s))).toBe(false);
    expect(statusMatches('2**', 250)).toBe(true);
    expect(statusMatches('2xx', 299)).toBe(true);
    expect(statusMatches('2xx', 300)).toBe(false);
    expect(statusMatches('200, 301', 301)).toBe(true);
    expect(statusMatches('200', 2000)).toBe(false);
  });
});

describe('http: parameters', () => {
  const ok = (p: Record<string, unknown>) => expect(() => validateParams(httpRequest, { url: 'https://example.com', ...p })).not.toThrow();
  const bad = (p: Record<string, unknown>, field: RegExp) => expect(() => validateParams(httpRequest, { url: 'https://example.com', ...p })).toThrow(field);

  it('accepts what the webhook.site API accepts', () => {
    ok({
      content: null,
      method: null,
      mode: null,
      auth: null,
      headers: null,
      skip_ssl_verification: null,
      timeout: null,
      retry: { enabled: null, retries: null, delay: null, require_status: null },
    });
    ok({ method: 'TRACE', mode: 'forward', timeout: '15', retry: { enabled: '1', retries: '10', delay: '0', require_status: '20*' } });
    ok({ auth: [], retry: [], urlencoded: [], multipart: [] });
    ok({ mode: 'multipart', multipart: [{ name: 'a' }] });
    ok({ mode: 'urlencoded', urlencoded: [{ name: 'a', value: '' }] });
    ok({ auth: { mode: 'digest', username: 'u', password: 'p' } });
    ok({ method: '$m$', timeout: '$t$', variable_name: '$out$' });
  });

  it('refuses bad parameters, naming the field', () => {
    expect(() => validateParams(httpRequest, {})).toThrow(/parameters.url: is required/);
    bad({ url: '' }, /parameters.url/);
    bad({ method: 'FETCH' }, /parameters.method/);
    bad({ method: 'HEAD' }, /parameters.method/);
    bad({ mode: 'xml' }, /parameters.mode/);
    bad({ auth: { mode: 'oauth' } }, /parameters.auth.mode/);
    bad({ auth: { mode: 'bearer' } }, /parameters.auth.token: is required with bearer auth/);
    ok({ auth: { mode: 'bearer', token: '$token$' } });
    bad({ auth: 'basic' }, /parameters.auth/);
    bad({ mode: 'multipart' }, /parameters.multipart: is required in multipart mode/);
    bad({ mode: 'multipart', multipart: [] }, /parameters.multipart/);
    bad({ multipart: [{ name: 1 }] }, /parameters.multipart.0.name/);
    bad({ mode: 'urlencoded', urlencoded: [{ value: 'v' }] }, /parameters.urlencoded.0.name: is required in urlencoded mode/);
    bad({ mode: 'urlencoded', urlencoded: [{ name: 'n' }] }, /parameters.urlencoded.0.value/);
    bad({ headers: 'NoColon' }, /parameters.headers: Invalid header line "NoColon": expected "Name: value"/);
    bad({ headers: 'Bad Name: x' }, /parameters.headers/);
    bad({ skip_ssl_verification: 'maybe' }, /parameters.skip_ssl_verification/);
    bad({ timeout: 16 }, /parameters.timeout: must be between 0 and 15 seconds/);
    bad({ timeout: '-1' }, /parameters.timeout/);
    bad({ timeout: 'soon' }, /parameters.timeout/);
    bad({ retry: { retries: 0 } }, /parameters.retry.retries/);
    bad({ retry: { retries: 11 } }, /parameters.retry.retries/);
    bad({ retry: { delay: 10.5 } }, /parameters.retry.delay/);
    bad({ retry: { require_status: 'ok' } }, /parameters.retry.require_status/);
    bad({ retry: { enabled: 'sometimes' } }, /parameters.retry.enabled/);
    bad({ variable_name: '$ $' }, /parameters.variable_name/);
  });

  it('a bad value from a variable is an action error at run time', async () => {
    const r = await runAction(httpRequest, { url: 'http://example.test', timeout: '$t$' }, { vars: { t: '99' }, services: { http: stubHttp() } });
    expect(r.errors).toEqual(['Invalid parameter parameters.timeout: must be between 0 and 15 seconds']);
  });
});

describe('http: bytes', () => {
  // Every byte value: not UTF-8, so it travels in variables as a marked span (@capture/sdk/bytes).
  const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

  it('text mode sends the bytes of a binary request body unchanged', async () => {
    const r = await run({ url: server.url, mode: 'text', content: '$request.content$' }, { rawBody: allBytes });
    expect(r.errors).toEqual([]);
    const [got] = server.received;
    expect(got.body.equals(allBytes)).toBe(true);
    expect(got.headers['content-length']).toBe('256');
  });

  it('json mode sends text around bytes as UTF-8 and the bytes as themselves', async () => {
    await run({ url: server.url, mode: 'json', content: '{"é": "$bin$"}' }, { vars: { bin: bytesText(allBytes) } });
    const [got] = server.received;
    expect(got.body.equals(Buffer.concat([Buffer.from('{"é": "'), allBytes, Buffer.from('"}')]))).toBe(true);
  });

  it('multipart mode sends an uploaded file byte-exactly', async () => {
    await run(
      { url: server.url, mode: 'multipart', multipart: [{ name: 'img', filename: '$request.file.img.filename$', 'content-type': 'image/png', content: '$request.file.img.content$' }] },
      { request: { files: [{ id: 'f1', name: 'img', filename: 'a.png', size: 256, content_type: 'image/png', content: allBytes }] } },
    );
    const [got] = server.received;
    const b = /boundary=(.+)$/.exec(String(got.headers['content-type']))![1];
    const head = Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="img"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
    expect(got.body.equals(Buffer.concat([head, allBytes, Buffer.from(`\r\n--${b}--\r\n`)]))).toBe(true);
  });

  it('a binary response is kept as bytes in $http.content$; a UTF-8 one as text', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(allBytes);
    };
    const r = await run({ url: server.url });
    expect(r.vars['http.content']).toBe(bytesText(allBytes));
    expect(textBytes(r.vars['http.content']!).equals(allBytes)).toBe(true);
    expect(r.output[0]).toContain('256 bytes');
    handler = (_req, res) => void res.end('héllo ✓');
    expect((await run({ url: server.url })).vars['http.content']).toBe('héllo ✓');
  });

  it('a downloaded file can be sent on byte-exactly by a later action', async () => {
    handler = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end(req.url === '/image.png' ? allBytes : 'stored');
    };
    const registry = new ActionRegistry();
    registry.addAll('test', [httpRequest]);
    const r = await runChain({
      token: TEST_TOKEN,
      request: testRequest(),
      rawBody: Buffer.alloc(0),
      registry,
      services: testServices({ http: outboundHttp() }),
      actions: [
        { uuid: 'a', type: 'http', order: 1, parameters: { url: `${server.url}/image.png`, variable_name: 'img' } },
        { uuid: 'b', type: 'http', order: 2, parameters: { url: `${server.url}/upload`, method: 'PUT', content: '$img.content$', headers: 'Content-Type: $img.headers.content-type$' } },
      ],
    });
    expect(r.errors).toEqual([]);
    const upload = server.received.find((g) => g.url === '/upload')!;
    expect(upload.body.equals(allBytes)).toBe(true);
    expect(upload.headers['content-type']).toBe('image/png');
    expect(r.runtimeVariables['http.content']).toBe('stored');
  });
});
