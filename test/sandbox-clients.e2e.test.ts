// Through a started service: the JavaScript action's Buffer, `variables`, require('supabase')
// against a local PostgREST-speaking server and require('nats') against the machine's NATS server;
// WebhookScript's action(), delete() and delay() (a queued job that adds its output to the request).
import { connect, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS, requireNats } from '../plugins/javascript/test/nats-server.js';
import { startPostgrest, type PostgrestServer } from '../plugins/javascript/test/postgrest-server.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let owner: { id: number; key: string };
let pg: PostgrestServer;

beforeAll(async () => {
  s = await startTestServer({ SCHEDULER_POLL_MS: '100' });
  owner = await s.user(true);
  pg = await startPostgrest('e2e-key', { orders: [{ id: 1, item: 'book', qty: 2 }] });
});
afterAll(async () => {
  await s?.close();
  await pg?.close();
});

async function tokenWith(actions: Array<Record<string, unknown>>): Promise<string> {
  const t = await s.token({ actions: true }, owner.key);
  for (const json of actions) {
    const r = await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json });
    expect(r.status, r.text).toBe(200);
  }
  return t.uuid as string;
}

const latest = async (token: string) => (await s.call('GET', `/token/${token}/request/latest`, { key: owner.key })).data;

describe('javascript action in the service', () => {
  it('answers from a PostgREST backend through require("supabase"), with Buffer and variables', async () => {
    const token = await tokenWith([
      {
        type: 'javascript',
        parameters: {
          script: `
            const createClient = require('supabase');
            const db = createClient(${JSON.stringify(pg.url)}, 'e2e-key');
            const order = JSON.parse(request.content);
            const added = await db.from('orders').insert(order).select();
            const { data } = await db.from('orders').select('item, qty').gte('qty', 2).order('id');
            const hash = Buffer.from(variables['request.content']).toString('base64');
            respond(JSON.stringify({ added: added.data[0].id, items: data.map((o) => o.item), hash, ua: variables['request.header.user-agent'] }), 201, ['Content-Type: application/json']);
          `,
        },
      },
    ]);
    const body = JSON.stringify({ item: 'lamp', qty: 3 });
    const r = await s.call('POST', `/${token}`, { body, headers: { 'Content-Type': 'application/json', 'User-Agent': 'e2e-agent' } });
    expect(r.status, r.text).toBe(201);
    expect(JSON.parse(r.text)).toEqual({ added: 2, items: ['book', 'lamp'], hash: Buffer.from(body).toString('base64'), ua: 'e2e-agent' });
    expect(pg.tables.get('orders')).toEqual([
      { id: 1, item: 'book', qty: 2 },
      { id: 2, item: 'lamp', qty: 3 },
    ]);
    expect(pg.seen.at(-1)!.headers).toMatchObject({ apikey: 'e2e-key', authorization: 'Bearer e2e-key' });
  });

  describe('with NATS', () => {
    let nc: NatsConnection;
    const sc = StringCodec();
    beforeAll(async () => {
      await requireNats();
      nc = await connect({ servers: NATS });
    });
    afterAll(() => nc?.close());

    it('publishes the capture and answers with what a NATS service replied', async () => {
      const base = `capture.e2e.${process.pid}.${Date.now().toString(36)}`;
      const seen: string[] = [];
      const events = nc.subscribe(`${base}.events`, { callback: (_e, m) => seen.push(sc.decode(m.data)) });
      const pricing = nc.subscribe(`${base}.price`, { callback: (_e, m) => m.respond(sc.encode(String(Number(sc.decode(m.data)) * 10))) });
      await nc.flush();
      const token = await tokenWith([
        {
          type: 'javascript',
          parameters: {
            script: `
              const nats = require('nats');
              const nc = await nats.connect({ servers: ['127.0.0.1:4222'] });
              nc.publish('${base}.events', request.content);
              const price = await nc.request('${base}.price', get('request.query.qty'), { timeout: 2000 });
              set('price', price.string());
              await nc.drain();
            `,
          },
        },
        { type: 'modify_response', parameters: { content: 'price: $price$' } },
      ]);
      const r = await s.call('POST', `/${token}?qty=4`, { body: 'order #1' });
      const stored = await latest(token);
      expect(stored.custom_action_errors).toEqual([]);
      expect(r.text).toBe('price: 40');
      await nc.flush();
      expect(seen).toEqual(['order #1']);
      events.unsubscribe();
      pricing.unsubscribe();
    });
  });
});

describe('WebhookScript in the service', () => {
  it('action() runs another action type and returns its variables', async () => {
    const token = await tokenWith([
      {
        type: 'script',
        parameters: {
          script: `extract = action('auto_json', ['source': var('request.content')])
names = []
for (name in extract.keys()) { if (name.contains('json.')) { names.push(name) } }
echo(names.sort().join(','))
respond(extract['json.user.name'])`,
        },
      },
    ]);
    const r = await s.call('POST', `/${token}`, { json: { user: { name: 'Ada', id: 7 } } });
    expect(r.text).toBe('Ada');
    const stored = await latest(token);
    expect(stored.custom_action_errors).toEqual([]);
    expect(stored.custom_action_output).toContainEqual('[1 script] json.user.id,json.user.name');
  });

  it('delete() removes a Global Variable of the account', async () => {
    for (const name of ['doomed', 'kept']) expect((await s.call('POST', '/global-variables', { key: owner.key, json: { name, value: 'v' } })).status).toBe(200);
    const token = await tokenWith([{ type: 'script', parameters: { script: "echo(delete('doomed'), delete('doomed'))" } }]);
    await s.call('POST', `/${token}`, { body: 'x' });
    expect((await latest(token)).custom_action_output).toEqual(['[1 script] true false']);
    const left = await s.call('GET', '/global-variables', { key: owner.key });
    expect(left.data.data.map((g: { name: string }) => g.name)).toEqual(['kept']);
  });

  it('delay() runs the code later as a queued job and adds its output to the request, labelled', async () => {
    const token = await tokenWith([
      {
        type: 'script',
        parameters: { script: `code = 'echo("later: " + var("request.content") + " " + var("mine", "not inherited"))'\nset('mine', 'x')\ndelay(1, code)\necho('now')` },
      },
    ]);
    const t0 = Date.now();
    const r = await s.call('POST', `/${token}`, { body: 'payload' });
    expect(r.status).toBe(200);
    const first = await latest(token);
    expect(first.custom_action_output).toEqual(['[1 script] now', '[1 script] Delayed: script runs in 1 s']);
    const end = Date.now() + 15_000;
    let done;
    for (;;) {
      done = await latest(token);
      if (done.custom_action_output.length > 2 || Date.now() > end) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(done.custom_action_output).toEqual(['[1 script] now', '[1 script] Delayed: script runs in 1 s', '[Was delayed] [1 script] later: payload not inherited']);
    expect(done.custom_action_errors).toEqual([]);
  });
});

describe('delay() outside a capture', () => {
  it('a test run says what would be queued instead of queuing it', async () => {
    const token = await tokenWith([{ type: 'script', parameters: { script: "delay(1, 'echo(1)')" } }]);
    const r = await s.call('POST', `/token/${token}/test-action`, { key: owner.key, json: { type: 'script', parameters: { script: "delay(30, 'echo(1)')\necho('tested')" } } });
    expect(r.status, r.text).toBe(200);
    const lines = Object.values(r.data.result.output as Record<string, string[]>).flat();
    expect(lines.sort()).toEqual(['Delayed: script would run in 1 s (not queued: this run is not a capture)', 'Delayed: script would run in 30 s (not queued: this run is not a capture)', 'tested']);
  });
});
