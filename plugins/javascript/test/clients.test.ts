// The javascript action's hosted-backend and message-bus clients against real parts: require
// ('supabase') / require('@supabase/supabase-js') against a local server speaking PostgREST's
// protocol, and require('nats') against the NATS server this machine runs on 127.0.0.1:4222. Both
// go through the outbound policy (core/net/outbound.ts), as the running service wires them.
import { connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, createSandboxPool, type OutboundPolicy, resolveAllowed } from '../../../test/helpers/host.js';
import { type HttpClient, type Network, SANDBOX } from '@capture/sdk';
import { rootContainer as container, runAction } from '@capture/sdk/testing';
import { javascript } from '../src/javascript.js';
import { parseServer } from '../src/nats.js';
import { NATS, requireNats } from './nats-server.js';
import { startPostgrest, type PostgrestServer } from './postgrest-server.js';

const OPEN: OutboundPolicy = { allowLoopback: true, allowPrivate: true };
const NO_LOOPBACK: OutboundPolicy = { allowLoopback: false, allowPrivate: true };

/** The service's HTTP client (module.ts does the same adaptation). */
function policyHttp(policy: OutboundPolicy): HttpClient {
  const outbound = createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: policy.allowLoopback, OUTBOUND_ALLOW_PRIVATE: policy.allowPrivate });
  return {
    async request(req) {
      const r = await outbound.request(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) headers[k] = v.join(', ');
      return { status: r.status, headers, body: r.body, url: r.url };
    },
  };
}
const policyNet = (policy: OutboundPolicy): Network => ({ resolve: (host) => resolveAllowed(host, policy) });
const services = (policy = OPEN) => ({ http: policyHttp(policy), net: policyNet(policy) });

const pool = createSandboxPool({ size: 2 });
beforeAll(async () => {
  container.registerInstance(SANDBOX, pool);
  await pool.ready();
});
afterAll(() => pool.close());

describe('require("supabase") against a PostgREST server', () => {
  let pg: PostgrestServer;
  beforeAll(async () => {
    pg = await startPostgrest('anon-key-1', {
      users: [
        { id: 1, name: 'Jack', age: 40, team: 'a' },
        { id: 2, name: 'Elijah', age: 30, team: 'b' },
        { id: 3, name: 'Jim', age: 35, team: 'a' },
      ],
    });
  });
  afterAll(() => pg.close());

  it('select with filters, order and limit; insert, update and delete with return=representation', async () => {
    const script = `
      const { createClient } = require('@supabase/supabase-js');
      const supabase = createClient(${JSON.stringify(pg.url)}, 'anon-key-1');
      let r = await supabase.from('users').select('id, name').eq('team', 'a').order('age', { ascending: false });
      echo(JSON.stringify(r.data), r.error, r.status);
      r = await supabase.from('users').select('*').in('id', [2, 3]).gt('age', 31).limit(5);
      echo(JSON.stringify(r.data));
      r = await supabase.from('users').insert({ name: 'Ann', age: 22, team: 'c' }).select();
      echo(r.status, JSON.stringify(r.data));
      r = await supabase.from('users').insert([{ name: 'Bo', age: 50, team: 'c' }]);
      echo(r.status, r.data, r.error);
      r = await supabase.from('users').update({ team: 'z' }).eq('team', 'c').select('name, team');
      echo(JSON.stringify(r.data));
      r = await supabase.from('users').delete().eq('name', 'Bo').select();
      echo(JSON.stringify(r.data.map((u) => u.name)));
      r = await supabase.from('users').select('name').eq('id', 1).single();
      echo(JSON.stringify(r.data));
      r = await supabase.from('users').select('*', { count: 'exact' }).ilike('name', 'j%');
      echo(r.count, r.data.length);
      set('first', (await supabase.from('users').select('name').order('id').limit(1)).data[0].name);
    `;
    const r = await runAction(javascript, { script }, { services: services() });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual([
      '[{"id":1,"name":"Jack"},{"id":3,"name":"Jim"}] null 200',
      '[{"id":3,"name":"Jim","age":35,"team":"a"}]',
      '201 [{"id":4,"name":"Ann","age":22,"team":"c"}]',
      '201 null null',
      '[{"name":"Ann","team":"z"},{"name":"Bo","team":"z"}]',
      '["Bo"]',
      '{"name":"Jack"}',
      '2 2',
    ]);
    expect(r.vars.first).toBe('Jack');
    expect(pg.tables.get('users')!.map((u) => u.name)).toEqual(['Jack', 'Elijah', 'Jim', 'Ann']);
    // What went over the wire is PostgREST's protocol, with the key in both headers.
    const get = pg.seen[0]!;
    expect(get.method).toBe('GET');
    expect(decodeURIComponent(get.query)).toBe('?select=id,name&team=eq.a&order=age.desc');
    expect(get.headers).toMatchObject({ apikey: 'anon-key-1', authorization: 'Bearer anon-key-1' });
    const insert = pg.seen.find((s) => s.method === 'POST')!;
    expect(insert.headers.prefer).toBe('return=representation');
    expect(insert.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(insert.body)).toEqual({ name: 'Ann', age: 22, team: 'c' });
    expect(pg.seen.filter((s) => s.method === 'POST')[1]!.headers.prefer).toBeUndefined();
    expect(pg.seen.find((s) => s.method === 'PATCH')!.query).toContain('team=eq.c');
    expect(pg.seen.find((s) => s.method === 'GET' && s.headers.accept === 'application/vnd.pgrst.object+json')).toBeDefined();
  });

  it("require('supabase') is createClient (webhook.site's docs); errors come back as { data: null, error }", async () => {
    const script = `
      const createClient = require('supabase');
      const good = createClient(${JSON.stringify(pg.url)}, 'anon-key-1');
      const bad = createClient(${JSON.stringify(pg.url)}, 'wrong-key');
      let r = await bad.from('users').select();
      echo(r.status, r.error.message, r.data);
      r = await good.from('nope').select();
      echo(r.status, r.error.code, r.error.message);
      r = await good.from('users').select().eq('id', 999).single();
      echo(r.error.code, r.data);
      r = await good.from('users').select().eq('id', 999).maybeSingle();
      echo(r.error, r.data);
      r = await good.from('users').insert({ id: 1, name: 'dup' });
      echo(r.status, r.error.code);
    `;
    const r = await runAction(javascript, { script }, { services: services() });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['401 Invalid API key null', '404 42P01 relation "public.nope" does not exist', 'PGRST116 null', 'null null', '409 23505']);
  });

  it('goes through the outbound policy: a refused address is an error, nothing reaches the server', async () => {
    const before = pg.seen.length;
    const script = `const { data, error } = await require('supabase')(${JSON.stringify(pg.url)}, 'anon-key-1').from('users').select(); echo(data, error.message)`;
    const r = await runAction(javascript, { script }, { services: services(NO_LOOPBACK) });
    expect(r.errors).toEqual([]);
    expect(r.output[0]).toMatch(/^null .*refused.*127\.0\.0\.1.*loopback/i);
    expect(pg.seen.length).toBe(before);
  });
});

describe('require("nats") against the local NATS server', () => {
  let nc: NatsConnection;
  const sc = StringCodec();
  beforeAll(async () => {
    await requireNats();
    nc = await connect({ servers: NATS });
  });
  afterAll(() => nc?.close());

  const subject = (name: string) => `capture.test.${process.pid}.${Date.now().toString(36)}.${name}`;

  it('publishes what a subscriber on the host receives, and answers a request from a host responder', async () => {
    const events = subject('events');
    const svc = subject('svc');
    const got: string[] = [];
    const sub = nc.subscribe(events, { callback: (_e, m) => got.push(`${m.subject}:${sc.decode(m.data)}`) });
    const responder = nc.subscribe(svc, { callback: (_e, m) => m.respond(sc.encode(`hello ${sc.decode(m.data)}`)) });
    await nc.flush();
    const script = `
      const nats = require('nats');
      const sc = nats.StringCodec();
      const nc = await nats.connect({ servers: [${JSON.stringify(NATS)}] });
      nc.publish(${JSON.stringify(events)}, sc.encode('one'));
      nc.publish(${JSON.stringify(events)}, JSON.stringify({ n: 2 }));
      await nc.flush();
      const reply = await nc.request(${JSON.stringify(svc)}, sc.encode('script'), { timeout: 2000 });
      echo(reply.string(), sc.decode(reply.data), reply.subject.length > 0);
      try { await nc.request(${JSON.stringify(subject('nobody'))}, 'x', { timeout: 300 }); } catch (e) { echo('no responder:', e.message.length > 0); }
      await nc.close();
      echo(nc.isClosed());
    `;
    const r = await runAction(javascript, { script }, { services: services() });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['hello script hello script true', 'no responder: true', 'true']);
    await nc.flush();
    await new Promise((res) => setTimeout(res, 50));
    expect(got).toEqual([`${events}:one`, `${events}:{"n":2}`]);
    sub.unsubscribe();
    responder.unsubscribe();
  });

  it('subscribes for the run: async iteration and callbacks, with messages the host sends while the script waits', async () => {
    const feed = subject('feed');
    const go = subject('go');
    // A host responder that, when asked, publishes three messages on the feed.
    const trigger = nc.subscribe(go, {
      callback: (_e, m) => {
        for (const x of ['a', 'b', 'c']) nc.publish(feed, sc.encode(x));
        m.respond(sc.encode('sent'));
      },
    });
    await nc.flush();
    const script = `
      const { connect, JSONCodec } = require('nats');
      const nc = await connect({ servers: ${JSON.stringify(NATS)} });
      const seen = [];
      const viaCallback = nc.subscribe(${JSON.stringify(feed)}, { callback: (err, m) => seen.push('cb:' + m.string()) });
      const sub = nc.subscribe(${JSON.stringify(feed)}, { max: 3 });
      echo((await nc.request(${JSON.stringify(go)}, '', { timeout: 2000 })).string());
      for await (const m of sub) seen.push('it:' + m.string());
      echo(seen.filter((s) => s.startsWith('it:')).join(','), sub.getProcessed());
      await new Promise((r) => setTimeout(r, 100));
      echo(seen.filter((s) => s.startsWith('cb:')).join(','));
      const jc = JSONCodec();
      echo(JSON.stringify(jc.decode(jc.encode({ ok: true }))));
    `;
    const r = await runAction(javascript, { script }, { services: services() });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['sent', 'it:a,it:b,it:c 3', 'cb:a,cb:b,cb:c', '{"ok":true}']);
    trigger.unsubscribe();
  });

  it("closes the run's connections and subscriptions when the run ends, even when the script does not", async () => {
    const feed = subject('left-open');
    const svc = subject('left-open-svc');
    const script = `
      const nc = await require('nats').connect({ servers: ${JSON.stringify(NATS)}, name: 'left-open' });
      nc.subscribe(${JSON.stringify(svc)}, { callback: (e, m) => m.respond('alive') });
      nc.publish(${JSON.stringify(feed)}, 'not flushed by the script');
      echo('done');
    `;
    const got: string[] = [];
    const watcher = nc.subscribe(feed, { callback: (_e, m) => got.push(sc.decode(m.data)) });
    await nc.flush();
    const r = await runAction(javascript, { script }, { services: services() });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['done']);
    await nc.flush();
    await new Promise((res) => setTimeout(res, 100));
    // The unflushed publish was sent on close; the responder the script left is gone with its connection.
    expect(got).toEqual(['not flushed by the script']);
    await expect(nc.request(svc, sc.encode('anyone?'), { timeout: 1000 })).rejects.toMatchObject({ code: '503' });
    watcher.unsubscribe();
  });

  it('goes through the outbound policy: a refused server is an error and nothing connects', async () => {
    const script = `try { await require('nats').connect({ servers: ['127.0.0.1:4222'] }); echo('connected'); } catch (e) { echo(e.message); }`;
    const r = await runAction(javascript, { script }, { services: services(NO_LOOPBACK) });
    expect(r.errors).toEqual([]);
    expect(r.output).toHaveLength(1);
    expect(r.output[0]).toMatch(/refused.*127\.0\.0\.1.*loopback/i);
  });

  it('reads server names like the nats package does', () => {
    expect(parseServer('demo.nats.io:4442')).toEqual({ host: 'demo.nats.io', port: 4442 });
    expect(parseServer('nats://user:pw@example.com')).toEqual({ host: 'example.com', port: 4222 });
    expect(parseServer('[::1]:4333')).toEqual({ host: '::1', port: 4333 });
    expect(() => parseServer('host:99999')).toThrow(/port/);
  });
});
