import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { RESERVED_SEGMENTS } from '../tokens/tokens.schema.js';
import { WEB_PREFIX, webModule } from './module.js';

describe('web page module', () => {
  let dir: string;
  let srv: TestServer;
  let missing: TestServer;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'web-'));
    await mkdir(path.join(dir, 'assets'));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>page</title>');
    await writeFile(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    await writeFile(path.join(dir, 'assets', 'index-abc123.css'), 'body{}');
    await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(path.join(path.dirname(dir), 'secret.txt'), 'no');
    srv = await startTestServer({ EMAIL_DOMAIN: 'mail.example.test' }, { modules: [webModule({ dir })] });
    missing = await startTestServer({}, { modules: [webModule({ dir: path.join(dir, 'nope') })] });
  });
  afterAll(async () => {
    await srv?.close();
    await missing?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('mounts under a reserved first segment, so no alias can shadow it', () => {
    expect(RESERVED_SEGMENTS.has(WEB_PREFIX.slice(1))).toBe(true);
  });

  it('serves index.html at / with no-cache and a content security policy', async () => {
    const r = await srv.call('GET', '/', { headers: { Accept: 'text/html' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(r.text).toContain('<title>page</title>');
  });

  it('answers 304 to a revalidation of an unchanged page', async () => {
    const first = await srv.call('GET', '/');
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    // (fetch adds `Cache-Control: no-cache` to conditional requests unless told otherwise.)
    const again = await srv.call('GET', '/', { headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('serves hashed assets as immutable with their content types', async () => {
    const js = await srv.call('GET', '/app/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.text).toBe('console.log(1)');
    const css = await srv.call('GET', '/app/assets/index-abc123.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const svg = await srv.call('GET', '/app/favicon.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers HEAD without a body', async () => {
    const res = await fetch(`${srv.url}/app/assets/index-abc123.js`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('14');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('never serves files outside the page directory', async () => {
    for (const p of ['/app/../secret.txt', '/app/%2e%2e/secret.txt', '/app/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/app/..%5csecret.txt']) {
      const r = await srv.call('GET', p);
      expect(r.status, p).toBe(404);
      expect(r.text).not.toBe('no');
    }
  });

  it('answers 404 JSON for a missing asset', async () => {
    const r = await srv.call('GET', '/app/assets/nope.js');
    expect(r.status).toBe(404);
    expect(r.data.message).toContain('/app/assets/nope.js');
  });

  it('exposes the base URL, the e-mail domain and whether databases are configured at /app/config.json', async () => {
    const r = await srv.call('GET', '/app/config.json');
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ base_url: srv.url, email_domain: 'mail.example.test', dns_domain: 'dns.localhost', capture_domain: null, databases: false });
  });

  it('answers a clear 503 while the page is not built', async () => {
    for (const p of ['/', '/app/', '/app/assets/index-abc123.js']) {
      const r = await missing.call('GET', p);
      expect(r.status, p).toBe(503);
      expect(r.data.message).toMatch(/not built.*npm run build/);
    }
    // The API around it is unaffected.
    expect((await missing.call('GET', '/healthz')).status).toBe(200);
  });

  it('leaves capture URLs alone', async () => {
    const t = await srv.token();
    const r = await srv.call('POST', `/${t.uuid}/app`, { body: 'x' });
    expect(r.status).toBe(200);
    const list = await srv.call('GET', `/token/${t.uuid}/requests`);
    expect(list.data.total).toBe(1);
  });
});
