// End to end: real DNS queries over UDP (Node's resolver) and TCP (dns2's client) to the running
// server, and what the API then shows.
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import dns2 from 'dns2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { createActionsModule } from '../actions/module.js';
import { RequestView } from '../capture/request-view.js';
import { createDnsModule } from './module.js';
import { parseAnswers, select, txtStrings } from './answers.js';
import { DNS_INFO } from '../service-keys.js';

const ZONE = 'dns.test.internal';
const ANSWER = JSON.stringify([
  { type: 'a', value: '127.0.0.1' },
  { type: 'a', value: '10.0.0.2' },
  { type: 'cname', value: 'example.com.' },
  { type: 'txt', value: 'hello world\nsecond line' },
]);

let s: TestServer;
let port: number;
let resolver: Resolver;

beforeAll(async () => {
  s = await startTestServer({ DNS_DOMAIN: ZONE, DNS_TTL: '30' }, { modules: [createDnsModule(), createActionsModule()] });
  port = s.provided.get(DNS_INFO)!.port!;
  resolver = new Resolver({ timeout: 3000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
});

afterAll(async () => {
  await s?.close();
});

async function requests(tokenId: string, query = '', key?: string): Promise<any[]> {
  const r = await s.call('GET', `/token/${tokenId}/requests?sorting=oldest${query ? `&query=${encodeURIComponent(query)}` : ''}`, { key });
  expect(r.status).toBe(200);
  return r.data.data;
}

async function tcpQuery(name: string, type: string) {
  const query = dns2.TCPClient({ dns: '127.0.0.1', port });
  return query(name, type);
}

describe('DNS capture', () => {
  it('answers A, CNAME and TXT for a token from its default content, over UDP', async () => {
    const t = await s.token({ default_content: ANSWER, default_content_type: 'application/json' });
    const name = `${t.uuid}.${ZONE}`;
    expect((await resolver.resolve4(name)).sort()).toEqual(['10.0.0.2', '127.0.0.1']);
    expect(await resolver.resolve4(name, { ttl: true })).toContainEqual({ address: '127.0.0.1', ttl: 30 });
    expect(await resolver.resolveCname(name)).toEqual(['example.com']);
    expect(await resolver.resolveTxt(name)).toEqual([['hello world'], ['second line']]);

    const stored = await requests(t.uuid);
    expect(stored.map((r) => r.dns.type)).toEqual(['A', 'A', 'CNAME', 'TXT']);
    expect(stored[0]).toMatchObject({
      type: 'dns',
      token_id: t.uuid,
      ip: '127.0.0.1',
      hostname: name,
      method: 'DNS',
      dns: { name, type: 'A', protocol: 'udp', subdomain: '' },
      content: '',
      size: 0,
    });
  });

  it('captures any subdomain of a token, the way data is sent through DNS', async () => {
    const t = await s.token({ default_content: ANSWER });
    const data = Buffer.from('hello world').toString('base64url');
    const name = `${data}.x.${t.uuid}.${ZONE}`;
    expect(await resolver.resolveTxt(name)).toEqual([['hello world'], ['second line']]);
    // Names match whatever their case, and are stored as sent: base64 needs its case (Node's
    // resolver lower-cases names, dns2's client does not).
    const upper = `${data}.X.${t.uuid.toUpperCase()}.${ZONE.toUpperCase()}`;
    expect((await tcpQuery(upper, 'A')).answers).toHaveLength(2);
    const stored = await requests(t.uuid);
    expect(stored).toHaveLength(2);
    expect(stored[0].dns).toEqual({ name: name.toLowerCase(), type: 'TXT', protocol: 'udp', subdomain: `${data}.x`.toLowerCase() });
    expect(stored[1].dns).toEqual({ name: upper, type: 'A', protocol: 'tcp', subdomain: `${data}.X` });
    expect(Buffer.from(stored[1].dns.subdomain.split('.')[0], 'base64url').toString()).toBe('hello world');
    expect(RequestView.parse(stored[1]).dns).toEqual(stored[1].dns); // as documented (schemas/request.schema.json)
  });

  it('finds a token by its alias whatever the case the resolver gives the name', async () => {
    const alias = `Hook${randomUUID().slice(0, 8)}`;
    const { key } = await s.user(true); // aliases are a premium feature
    const t = await s.token({ alias, default_content: ANSWER }, key);
    // Node's resolver lower-cases the name; a resolver using DNS 0x20 randomises its case.
    expect((await resolver.resolve4(`Data.${alias}.${ZONE}`)).sort()).toEqual(['10.0.0.2', '127.0.0.1']);
    const mixed = `Data.${alias.toUpperCase().slice(0, 4)}${alias.slice(4).toLowerCase()}.${ZONE}`;
    expect((await tcpQuery(mixed, 'A')).answers).toHaveLength(2);
    const stored = await requests(t.uuid, '', key);
    expect(stored.map((r) => r.dns.name)).toEqual([`data.${alias.toLowerCase()}.${ZONE}`, mixed]);
    expect(stored.map((r) => r.dns.subdomain)).toEqual(['data', 'Data']);
  });

  it('answers over TCP too', async () => {
    const t = await s.token({ default_content: ANSWER });
    const a = await tcpQuery(`sub.${t.uuid}.${ZONE}`, 'A');
    expect(a.header.rcode).toBe(0);
    expect(a.header.aa).toBe(1);
    expect(a.answers.map((r: any) => r.address).sort()).toEqual(['10.0.0.2', '127.0.0.1']);
    const txt = await tcpQuery(`${t.uuid}.${ZONE}`, 'TXT');
    expect(txt.answers.map((r: any) => r.data)).toEqual([['hello world'], ['second line']]);
    const cname = await tcpQuery(`${t.uuid}.${ZONE}`, 'CNAME');
    expect(cname.answers.map((r: any) => r.domain)).toEqual(['example.com']);
    const stored = await requests(t.uuid);
    expect(stored.map((r) => [r.dns.type, r.dns.protocol])).toEqual([
      ['A', 'tcp'],
      ['TXT', 'tcp'],
      ['CNAME', 'tcp'],
    ]);
    expect(stored[0].dns.subdomain).toBe('sub');
  });

  it('answers unknown tokens with NXDOMAIN and stores nothing', async () => {
    const unknown = randomUUID();
    await expect(resolver.resolve4(`${unknown}.${ZONE}`)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolve4(`a.b.${unknown}.${ZONE}`)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const r = await tcpQuery(`${unknown}.${ZONE}`, 'A');
    expect(r.header.rcode).toBe(3);
    expect(r.authorities[0]).toMatchObject({ type: dns2.Packet.TYPE.SOA, primary: `ns.${ZONE}` });
    expect((await s.call('GET', `/token/${unknown}/requests`)).status).toBe(404);
  });

  it('refuses names outside DNS_DOMAIN and stores nothing', async () => {
    const t = await s.token({ default_content: ANSWER });
    await expect(resolver.resolve4(`${t.uuid}.example.com`)).rejects.toMatchObject({ code: 'EREFUSED' });
    expect(await requests(t.uuid)).toHaveLength(0);
  });

  it('gives an empty answer, and still stores the query, when the content is not a valid answer', async () => {
    for (const content of ['', 'hello', '{"type":"a","value":"1.2.3.4"}', '[{"type":"a","value":"example.com"}]', '[{"type":"mx","value":"mx.example.com"}]']) {
      const t = await s.token({ default_content: content });
      await expect(resolver.resolve4(`${t.uuid}.${ZONE}`)).rejects.toMatchObject({ code: 'ENODATA' });
      expect(await requests(t.uuid)).toHaveLength(1);
    }
  });

  it('answers a type the content does not have with the CNAME, or nothing', async () => {
    const t = await s.token({ default_content: JSON.stringify([{ type: 'txt', value: 'only text' }]) });
    await expect(resolver.resolve4(`${t.uuid}.${ZONE}`)).rejects.toMatchObject({ code: 'ENODATA' });
    const withCname = await s.token({ default_content: JSON.stringify([{ type: 'cname', value: 'target.example' }]) });
    const r = await tcpQuery(`${withCname.uuid}.${ZONE}`, 'AAAA');
    expect(r.answers).toMatchObject([{ type: dns2.Packet.TYPE.CNAME, domain: 'target.example' }]);
    // AAAA is stored with its type name.
    expect((await requests(withCname.uuid))[0].dns.type).toBe('AAAA');
  });

  it('runs Custom Actions with the DNS variables and answers from the response Modify Response set', async () => {
    const t = await s.token({ actions: true, default_content: ANSWER });
    const add = async (type: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const r = await s.call('POST', `/token/${t.uuid}/actions`, { json: { type, parameters, ...extra } });
      expect(r.status, r.text).toBe(200);
      return r.data;
    };
    await add('log', { text: 'name=$request.dns.name$ type=$request.dns.type$ sub=$request.dns.subdomain$ ip=$request.ip$ kind=$request.type$' });
    const blue = await add('condition', { input: '$request.dns.subdomain$', operator: 'eq', value: 'blue', action: 'noop' });
    await add('modify_response', { content: '[{"type":"a","value":"192.0.2.1"}]' }, { condition: blue.uuid });
    expect(await resolver.resolve4(`blue.${t.uuid}.${ZONE}`)).toEqual(['192.0.2.1']);
    // The condition fails for other names: the default content answers.
    expect((await resolver.resolve4(`red.${t.uuid}.${ZONE}`)).sort()).toEqual(['10.0.0.2', '127.0.0.1']);
    const stored = await requests(t.uuid);
    expect(stored[0].custom_action_output[0]).toBe(`[1 log] name=blue.${t.uuid}.${ZONE} type=A sub=blue ip=127.0.0.1 kind=dns`);
    expect(stored[1].custom_action_output[0]).toBe(`[1 log] name=red.${t.uuid}.${ZONE} type=A sub=red ip=127.0.0.1 kind=dns`);
  });

  it('answers from a response an action hook built, and stores its output', async () => {
    const t = await s.token({ actions: true, default_content: ANSWER });
    const before = s.pipeline.actions;
    s.pipeline.actions = async (token, record, _files, response) => {
      if (token.uuid !== t.uuid) return null;
      const name = (record.extra.dns as { name: string }).name;
      return {
        response: { ...response, content: JSON.stringify([{ type: 'a', value: name.startsWith('blue.') ? '192.0.2.1' : '192.0.2.2' }]) },
        dontSave: name.startsWith('secret.'),
        output: [`answered ${name}`],
        errors: [],
      };
    };
    try {
      expect(await resolver.resolve4(`blue.${t.uuid}.${ZONE}`)).toEqual(['192.0.2.1']);
      expect(await resolver.resolve4(`red.${t.uuid}.${ZONE}`)).toEqual(['192.0.2.2']);
      // Don't Save: answered, not stored.
      expect(await resolver.resolve4(`secret.${t.uuid}.${ZONE}`)).toEqual(['192.0.2.2']);
    } finally {
      s.pipeline.actions = before;
    }
    const stored = await requests(t.uuid);
    expect(stored.map((r) => r.custom_action_output)).toEqual([[`answered blue.${t.uuid}.${ZONE}`], [`answered red.${t.uuid}.${ZONE}`]]);
  });

  it('makes DNS captures searchable', async () => {
    const t = await s.token({ default_content: ANSWER });
    await resolver.resolve4(`canary.${t.uuid}.${ZONE}`);
    await resolver.resolveTxt(`other.${t.uuid}.${ZONE}`);
    const names = async (q: string) => (await requests(t.uuid, q)).map((r) => r.dns.name.split('.')[0]);
    expect(await names('type:dns')).toEqual(['canary', 'other']);
    expect(await names('type:web')).toEqual([]);
    expect(await names('dns.type:TXT')).toEqual(['other']);
    expect(await names('dns.name:canary')).toEqual(['canary']);
    expect(await names('hostname:canary')).toEqual(['canary']);
    expect(await names('_exists_:dns.name AND NOT dns.type:A')).toEqual(['other']);
  });

  it('answers packets that are not DNS queries with FORMERR, at once, and keeps answering', async () => {
    const sock = dgram.createSocket('udp4');
    const replies: Buffer[] = [];
    sock.on('message', (m) => replies.push(m));
    await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
    const send = (b: Buffer) => new Promise<void>((resolve, reject) => sock.send(b, port, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
    // A header claiming 65535 records of every kind: refused before decoding.
    const claims = Buffer.alloc(30);
    claims.writeUInt16BE(0x1234, 0);
    for (const at of [4, 6, 8, 10]) claims.writeUInt16BE(0xffff, at);
    const started = performance.now();
    await send(Buffer.from('definitely not a DNS packet'));
    await send(claims);
    await send(Buffer.alloc(3));
    const t = await s.token({ default_content: ANSWER });
    expect(await resolver.resolve4(`${t.uuid}.${ZONE}`)).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(1000);
    await vi.waitFor(() => expect(replies).toHaveLength(2));
    sock.close();
    const formerr = replies.find((r) => r.readUInt16BE(0) === 0x1234)!;
    expect(formerr[2]! & 0x80).toBe(0x80);
    expect(formerr[3]! & 0x0f).toBe(1);
  });

  it('truncates a long UDP answer, and the resolver gets it whole over TCP', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} `.padEnd(100, 'x'));
    const t = await s.token({ default_content: JSON.stringify([{ type: 'txt', value: lines.join('\n') }]) });
    const got = await resolver.resolveTxt(`${t.uuid}.${ZONE}`);
    expect(got.map((r) => r.join('')).sort()).toEqual([...lines].sort());
    const stored = await requests(t.uuid);
    expect(stored.map((r) => r.dns.protocol)).toEqual(['udp', 'tcp']);
  });
});

describe('DNS answers', () => {
  it('parses only the documented array', () => {
    expect(parseAnswers(ANSWER)).toHaveLength(4);
    expect(parseAnswers('[{"type":"A","value":"1.2.3.4"}]')).toEqual([{ type: 'a', value: '1.2.3.4' }]);
    expect(parseAnswers('[]')).toEqual([]);
    for (const bad of ['', 'null', '{}', '[1]', '[{"type":"a"}]', '[{"type":"a","value":"::1"}]', '[{"type":"cname","value":"not a host"}]', '[{"type":"txt","value":5}]']) {
      expect(parseAnswers(bad)).toBeNull();
    }
  });

  it('picks the records for the query type', () => {
    const all = parseAnswers(ANSWER)!;
    expect(select(all, 'A').map((a) => a.value)).toEqual(['127.0.0.1', '10.0.0.2']);
    expect(select(all, 'MX')).toEqual([{ type: 'cname', value: 'example.com' }]);
    expect(select(all, 'ANY')).toHaveLength(4);
  });

  it('splits long TXT lines into 255-byte strings without breaking characters', () => {
    const line = 'é'.repeat(200);
    const parts = txtStrings(line);
    expect(parts.join('')).toBe(line);
    expect(parts.every((p) => Buffer.byteLength(p) <= 255)).toBe(true);
  });
});

describe('DNS server start-up', () => {
  it('names the setting when the port is taken', async () => {
    // Node's error, marked for explainStartupError (core/lifecycle/startup.ts), which words it.
    await expect(startTestServer({ DNS_DOMAIN: ZONE, DNS_PORT: String(port) }, { modules: [createDnsModule()] })).rejects.toMatchObject({ code: 'EADDRINUSE', setting: 'DNS_PORT' });
  });

  it('does not start with DNS_ENABLED=false', async () => {
    const off = await startTestServer({ DNS_ENABLED: 'false' }, { modules: [createDnsModule()] });
    try {
      expect(off.provided.get(DNS_INFO)).toEqual({ port: null });
    } finally {
      await off.close();
    }
  });
});
