// Capture by subdomain end to end: with CAPTURE_DOMAIN set, `<token or alias>.CAPTURE_DOMAIN/any/path`
// is captured like `/{token}/any/path`, behind a trusted proxy too; without it the Host is never read.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../core/config.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const DOMAIN = 'hooks.example.test';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request to the server's socket with any Host header (fetch would not send a made-up one). */
function send(srv: TestServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function stored(srv: TestServer, token: string, key?: string) {
  return (await srv.call('GET', `/token/${token}/requests?sorting=newest`, { key })).data as { total: number; data: Array<Record<string, any>> };
}

describe('capture by subdomain (CAPTURE_DOMAIN set)', () => {
  let srv: TestServer;
  let port: string;
  beforeAll(async () => {
    srv = await startTestServer({ CAPTURE_DOMAIN: 'Hooks.Example.Test' });
    port = new URL(srv.url).port;
  });
  afterAll(async () => srv?.close());

  it('captures any path on <uuid>.CAPTURE_DOMAIN with the subdomain URL, query and body', async () => {
    const t = await srv.token({ default_content: 'hi from sub', default_content_type: 'text/plain' });
    const host = `${t.uuid}.${DOMAIN}:${port}`;
    const r = await send(srv, 'POST', '/any/path?x=1&y=two', { Host: host, 'Content-Type': 'text/plain' }, 'payload');
    expect(r.status).toBe(200);
    expect(r.text).toBe('hi from sub');
    expect(r.headers['x-token-id']).toBe(t.uuid);
    const list = await stored(srv, t.uuid);
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({
      method: 'POST',
      url: `http://${host}/any/path?x=1&y=two`,
      hostname: `${t.uuid}.${DOMAIN}`,
      query: { x: '1', y: 'two' },
      content: 'payload',
    });
  });

  it('takes an alias, a status path and upper-case host names; reserved paths are captured too', async () => {
    const owner = await srv.user(true);
    const t = await srv.token({ alias: 'my-hook' }, owner.key);
    const host = `MY-HOOK.${DOMAIN.toUpperCase()}:${port}`;
    expect((await send(srv, 'GET', '/201', { Host: host })).status).toBe(201);
    expect((await send(srv, 'GET', '/404/deeper', { Host: host })).status).toBe(404);
    // `/token` is the API on the main host, a captured path on a token's subdomain.
    const api = await send(srv, 'GET', '/token', { Host: host });
    expect(api.status).toBe(200);
    expect(api.headers['x-token-id']).toBe(t.uuid);
    const list = await stored(srv, t.uuid, owner.key);
    expect(list.total).toBe(3);
    expect(list.data.map((r) => new URL(r.url).pathname)).toEqual(['/token', '/404/deeper', '/201']);
  });

  it('answers an unknown subdomain 404 as JSON and leaves other hosts to path routing', async () => {
    const t = await srv.token();
    const unknown = await send(srv, 'POST', '/x', { Host: `no-such-token.${DOMAIN}` }, 'lost');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).message).toMatch(/Token not found/);
    // Two labels in front of the domain are no capture URL; the domain itself is the API.
    await send(srv, 'GET', `/${t.uuid}/by-path`, { Host: `a.${t.uuid}.${DOMAIN}` });
    const own = await send(srv, 'GET', `/token/${t.uuid}`, { Host: DOMAIN, Accept: 'application/json' });
    expect(own.status).toBe(200);
    expect(JSON.parse(own.text).uuid).toBe(t.uuid);
    const list = await stored(srv, t.uuid);
    // The nested host fell through to path routing: captured by its path, not its Host.
    expect(list.total).toBe(1);
    expect(new URL(list.data[0]!.url).pathname).toBe(`/${t.uuid}/by-path`);
  });

  it('tells the web page the capture domain', async () => {
    const r = await srv.call('GET', '/app/config.json');
    expect(r.status).toBe(200);
    expect(r.data.capture_domain).toBe(DOMAIN);
  });
});

describe('capture by subdomain behind a trusted proxy', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ CAPTURE_DOMAIN: DOMAIN, TRUSTED_PROXIES: '127.0.0.1' });
  });
  afterAll(async () => srv?.close());

  it("reads the proxy's X-Forwarded-Host and -Proto and the sender's address", async () => {
    const t = await srv.token();
    const r = await send(
      srv,
      'PUT',
      '/p?q=1',
      {
        Host: 'backend:8084',
        'X-Forwarded-Host': `${t.uuid}.${DOMAIN}`,
        'X-Forwarded-Proto': 'https',
        'X-Forwarded-For': '203.0.113.9',
      },
      'via proxy',
    );
    expect(r.status).toBe(200);
    const list = await stored(srv, t.uuid);
    expect(list.data[0]).toMatchObject({ method: 'PUT', url: `https://${t.uuid}.${DOMAIN}/p?q=1`, ip: '203.0.113.9', content: 'via proxy' });
  });
});

describe('without CAPTURE_DOMAIN', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv?.close());

  it('ignores the Host: a token subdomain is not captured', async () => {
    const t = await srv.token();
    const r = await send(srv, 'POST', '/', { Host: `${t.uuid}.${DOMAIN}` }, 'x');
    expect(r.headers['x-token-id']).toBeUndefined();
    expect((await stored(srv, t.uuid)).total).toBe(0);
    expect((await srv.call('GET', '/app/config.json')).data.capture_domain).toBeNull();
  });

  it('does not believe X-Forwarded-Host from a peer that is not a trusted proxy', async () => {
    const sub = await startTestServer({ CAPTURE_DOMAIN: DOMAIN });
    try {
      const t = await sub.token();
      await send(sub, 'POST', '/', { Host: '127.0.0.1', 'X-Forwarded-Host': `${t.uuid}.${DOMAIN}` }, 'x');
      expect((await stored(sub, t.uuid)).total).toBe(0);
    } finally {
      await sub.close();
    }
  });
});

describe('CAPTURE_DOMAIN setting', () => {
  it('is normalised to lower case without dots at the ends, and refuses what is not a domain name', () => {
    expect(loadConfig({ CAPTURE_DOMAIN: '.Hooks.Example.COM.' }).CAPTURE_DOMAIN).toBe('hooks.example.com');
    expect(loadConfig({}).CAPTURE_DOMAIN).toBeUndefined();
    for (const bad of ['hooks example.com', 'https://hooks.example.com', 'a..b', '-a.com']) {
      expect(() => loadConfig({ CAPTURE_DOMAIN: bad }), bad).toThrow(/CAPTURE_DOMAIN.*must be a domain name/);
    }
  });
});
