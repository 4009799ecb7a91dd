import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OutboundError, OutboundRefused, createOutboundClient, refusalReason, resolveAllowed } from './outbound.js';

const open = { OUTBOUND_ALLOW_LOOPBACK: true, OUTBOUND_ALLOW_PRIVATE: true };
const closed = { OUTBOUND_ALLOW_LOOPBACK: false, OUTBOUND_ALLOW_PRIVATE: false };

let server: http.Server;
let base: string;
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/echo') {
        res.setHeader('X-Multi', ['a', 'b']);
        res.writeHead(201, { 'Content-Type': 'text/plain' }).end(`${req.method} ${body}`);
      } else if (u.pathname === '/redirect') {
        const n = Number(u.searchParams.get('n') ?? '1');
        const code = Number(u.searchParams.get('code') ?? '302');
        res.writeHead(code, { Location: n > 1 ? `/redirect?n=${n - 1}&code=${code}` : '/echo' }).end();
      } else if (u.pathname === '/to') {
        res.writeHead(302, { Location: u.searchParams.get('url')! }).end();
      } else if (u.pathname === '/slow') {
        setTimeout(() => res.end('late'), 2000).unref();
      } else if (u.pathname === '/big') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const write = () => {
          while (sent < 4 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', write);
          }
          res.end();
        };
        write();
      } else {
        res.writeHead(404).end('nope');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('outbound client', () => {
  it('sends method, headers and body, and returns status, headers as arrays, body and time', async () => {
    const client = createOutboundClient(open);
    const r = await client.request({ method: 'put', url: `${base}/echo`, headers: { 'X-A': '1', 'X-B': ['two', 'three'] }, body: 'hello' });
    expect(r.status).toBe(201);
    expect(r.body.toString()).toBe('PUT hello');
    expect(r.headers['content-type']).toEqual(['text/plain']);
    expect(r.headers['x-multi']).toEqual(['a', 'b']);
    expect(r.truncated).toBe(false);
    expect(r.timeMs).toBeGreaterThan(0);
    const got = seen.at(-1)!;
    expect(got.headers['x-a']).toBe('1');
    expect(got.headers['x-b']).toBe('two, three');
  });

  it('follows up to 5 redirects and gives up after that', async () => {
    const client = createOutboundClient(open);
    const ok = await client.request({ method: 'GET', url: `${base}/redirect?n=5` });
    expect(ok.status).toBe(201);
    expect(ok.url).toBe(`${base}/echo`);
    await expect(client.request({ method: 'GET', url: `${base}/redirect?n=6` })).rejects.toMatchObject({ code: 'too_many_redirects' });
    const manual = await client.request({ method: 'GET', url: `${base}/redirect?n=1`, maxRedirects: 0 });
    expect(manual.status).toBe(302);
  });

  it('a 302 after POST continues as GET; a 307 keeps the method and body', async () => {
    const client = createOutboundClient(open);
    expect((await client.request({ method: 'POST', url: `${base}/redirect?n=1&code=302`, body: 'x' })).body.toString()).toBe('GET ');
    expect((await client.request({ method: 'POST', url: `${base}/redirect?n=1&code=307`, body: 'x' })).body.toString()).toBe('POST x');
  });

  it('times out with a typed error', async () => {
    const client = createOutboundClient(open);
    const t = Date.now();
    const err = await client.request({ method: 'GET', url: `${base}/slow`, timeoutMs: 150 }).catch((e) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/Timed out after 0.15 s/);
    expect(Date.now() - t).toBeLessThan(1500);
  });

  it('stops when the caller aborts', async () => {
    const client = createOutboundClient(open);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(client.request({ method: 'GET', url: `${base}/slow`, signal: ac.signal })).rejects.toMatchObject({ code: 'aborted' });
  });

  it('keeps at most maxBodyBytes of the response body', async () => {
    const client = createOutboundClient(open);
    const r = await client.request({ method: 'GET', url: `${base}/big`, maxBodyBytes: 100_000 });
    expect(r.body.length).toBe(100_000);
    expect(r.truncated).toBe(true);
  });

  it('refuses 169.254.169.254 without opening a socket or resolving anything', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const lookup = vi.spyOn(dns, 'lookup');
    try {
      const client = createOutboundClient(open);
      const err = await client.request({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' }).catch((e) => e);
      expect(err).toBeInstanceOf(OutboundRefused);
      expect(err.code).toBe('refused');
      expect(err.message).toMatch(/169\.254\.169\.254.*metadata/);
      expect(connect).not.toHaveBeenCalled();
      expect(lookup).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
      lookup.mockRestore();
    }
  });

  it('refuses loopback when OUTBOUND_ALLOW_LOOPBACK is false, by literal and by name', async () => {
    const client = createOutboundClient(closed);
    await expect(client.request({ method: 'GET', url: `${base}/echo` })).rejects.toBeInstanceOf(OutboundRefused);
    const port = (server.address() as AddressInfo).port;
    const err = await client.request({ method: 'GET', url: `http://localhost:${port}/echo` }).catch((e) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect(err.message).toMatch(/localhost resolves to .*loopback/);
  });

  it('checks the address the name resolves to at connect time (DNS rebinding)', async () => {
    // The name resolves to a private address only when the socket connects.
    const resolve = ((host: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) => cb(null, [{ address: host === 'rebind.test' ? '10.1.2.3' : '127.0.0.1', family: 4 }])) as unknown as typeof dns.lookup;
    const client = createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: true, OUTBOUND_ALLOW_PRIVATE: false }, { resolve });
    const err = await client.request({ method: 'GET', url: 'http://rebind.test/' }).catch((e) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect(err.message).toMatch(/rebind\.test resolves to 10\.1\.2\.3.*private/);
  });

  it('checks every redirect hop', async () => {
    const client = createOutboundClient(open);
    const err = await client.request({ method: 'GET', url: `${base}/to?url=${encodeURIComponent('http://169.254.169.254/')}` }).catch((e) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
  });

  it('rejects URLs that are not http(s)', async () => {
    const client = createOutboundClient(open);
    await expect(client.request({ method: 'GET', url: 'file:///etc/passwd' })).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(client.request({ method: 'GET', url: 'not a url' })).rejects.toMatchObject({ code: 'invalid_url' });
  });
});

describe('outbound policy', () => {
  it.each([
    ['169.254.169.254', true],
    ['169.254.1.1', true],
    ['fe80::1', true],
    ['fd00:ec2::254', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:a9fe:a9fe', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['100.100.100.200', true],
    ['8.8.8.8', false],
    ['2001:4860:4860::8888', false],
  ])('%s always refused: %s', (address, refused) => {
    expect(refusalReason(address, { allowLoopback: true, allowPrivate: true }) !== null).toBe(refused);
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1'])('loopback %s follows the setting', (address) => {
    expect(refusalReason(address, { allowLoopback: true, allowPrivate: false })).toBeNull();
    expect(refusalReason(address, { allowLoopback: false, allowPrivate: true })).toMatch(/loopback/);
  });

  it.each(['10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', 'fd12::1'])('private %s follows the setting', (address) => {
    expect(refusalReason(address, { allowLoopback: false, allowPrivate: true })).toBeNull();
    expect(refusalReason(address, { allowLoopback: true, allowPrivate: false })).toMatch(/private/);
  });
});

describe('outbound policy: every spelling and IPv4-embedding form is classified', () => {
  type Class = 'always' | 'loopback' | 'private' | 'public';
  const classOf = (address: string): Class => {
    if (refusalReason(address, { allowLoopback: true, allowPrivate: true })) return 'always';
    if (refusalReason(address, { allowLoopback: false, allowPrivate: true })) return 'loopback';
    if (refusalReason(address, { allowLoopback: true, allowPrivate: false })) return 'private';
    return 'public';
  };

  it.each<[string, Class]>([
    // IPv4-mapped ::ffff:0:0/96
    ['::ffff:169.254.169.254', 'always'],
    ['0:0:0:0:0:FFFF:A9FE:A9FE', 'always'],
    ['0000:0000:0000:0000:0000:ffff:169.254.169.254', 'always'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:c0a8:101', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    // IPv4-translated ::ffff:0:0:0/96
    ['::ffff:0:a9fe:a9fe', 'always'],
    ['::ffff:0:10.1.2.3', 'private'],
    ['::ffff:0:8.8.8.8', 'public'],
    // IPv4-compatible ::/96
    ['::a9fe:a9fe', 'always'],
    ['::169.254.169.254', 'always'],
    ['::A9FE:A9FE', 'always'],
    ['::127.0.0.1', 'loopback'],
    ['0:0:0:0:0:0:7f00:1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::0a00:0001', 'private'],
    ['::8.8.8.8', 'public'],
    ['::', 'always'],
    ['0:0:0:0:0:0:0:0', 'always'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::0.0.0.1', 'loopback'],
    // NAT64 64:ff9b::/96
    ['64:ff9b::a9fe:a9fe', 'always'],
    ['64:ff9b::169.254.169.254', 'always'],
    ['64:FF9B:0:0:0:0:7F00:1', 'loopback'],
    ['0064:ff9b:0000:0000:0000:0000:c0a8:0101', 'private'],
    ['64:ff9b::198.18.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    // Local-use NAT64 64:ff9b:1::/48
    ['64:ff9b:1::a9fe:a9fe', 'always'],
    ['64:ff9b:1:abcd::169.254.169.254', 'always'],
    ['64:ff9b:1::127.0.0.1', 'loopback'],
    ['64:ff9b:1:0:0:0:c0a8:101', 'private'],
    ['64:ff9b:1::8.8.8.8', 'public'],
    // 6to4 2002::/16, IPv4 in bits 16-47
    ['2002:a9fe:a9fe::', 'always'],
    ['2002:A9FE:A9FE:0:0:0:0:1', 'always'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:0a00:0001::1', 'private'],
    ['2002:c612:1::', 'private'],
    ['2002:808:808::1', 'public'],
    // Teredo 2001::/32, client IPv4 bit-inverted in the last 32 bits
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'always'],
    ['2001::80ff:fffe', 'loopback'],
    ['2001:0000:4136:E378:8000:63BF:F5FF:FFFE', 'private'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
    // Deprecated site-local fec0::/10
    ['fec0::1', 'private'],
    ['FEC0:0:0:0:0:0:0:1', 'private'],
    ['feff:ffff::1', 'private'],
    // Benchmarking 198.18.0.0/15
    ['198.18.0.1', 'private'],
    ['198.19.255.255', 'private'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    // Zone ids and other spellings of listed addresses
    ['fe80::1%eth0', 'always'],
    ['FE80:0:0:0:0:0:0:1%25eth0', 'always'],
    ['fd00:ec2:0:0:0:0:0:254', 'always'],
    ['FD00:EC2::254%eth0', 'always'],
    // Ordinary global IPv6 stays public
    ['2001:4860:4860::8888', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });

  it('names the embedded IPv4 address in the refusal', () => {
    expect(refusalReason('64:ff9b::a9fe:a9fe', { allowLoopback: true, allowPrivate: true })).toMatch(/embeds the IPv4 address 169\.254\.169\.254, which is the cloud metadata service/);
  });

  it('refuses an embedding literal in a URL and an embedding address a name resolves to', async () => {
    const client = createOutboundClient(open);
    await expect(client.request({ method: 'GET', url: 'http://[::169.254.169.254]/latest/meta-data/' })).rejects.toBeInstanceOf(OutboundRefused);
    await expect(client.request({ method: 'GET', url: 'http://[2002:a9fe:a9fe::1]/' })).rejects.toBeInstanceOf(OutboundRefused);
    const nat64 = (async () => [{ address: '64:ff9b::a9fe:a9fe', family: 6 }]) as unknown as typeof dns.promises.lookup;
    await expect(resolveAllowed('metadata.test', { allowLoopback: true, allowPrivate: true }, nat64)).rejects.toThrow(/metadata\.test resolves to 64:ff9b::a9fe:a9fe, which embeds/);
  });
});

describe('resolveAllowed (connections that are not HTTP)', () => {
  const open = { allowLoopback: true, allowPrivate: true };
  it('returns an allowed address of a name or a literal', async () => {
    expect(await resolveAllowed('127.0.0.1', open)).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await resolveAllowed('[::1]', open)).toEqual({ address: '::1', family: 6 });
    const fake = (async () => [{ address: '10.1.2.3', family: 4 }]) as unknown as typeof dns.promises.lookup;
    expect(await resolveAllowed('db.internal', open, fake)).toEqual({ address: '10.1.2.3', family: 4 });
  });

  it('refuses when any address is outside the policy, and names the rule', async () => {
    const rebinding = (async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ]) as unknown as typeof dns.promises.lookup;
    await expect(resolveAllowed('evil.test', open, rebinding)).rejects.toThrow(/evil.test resolves to 169.254.169.254, which is the cloud metadata service/);
    await expect(resolveAllowed('127.0.0.1', { allowLoopback: false, allowPrivate: true })).rejects.toBeInstanceOf(OutboundRefused);
    await expect(resolveAllowed('192.168.1.5', { allowLoopback: true, allowPrivate: false })).rejects.toThrow(/OUTBOUND_ALLOW_PRIVATE/);
  });

  it('reports names that do not resolve, and empty hosts', async () => {
    const failing = (async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    }) as unknown as typeof dns.promises.lookup;
    await expect(resolveAllowed('missing.test', open, failing)).rejects.toThrow(/Could not resolve missing.test: ENOTFOUND/);
    await expect(resolveAllowed('  ', open)).rejects.toBeInstanceOf(OutboundError);
  });
});
