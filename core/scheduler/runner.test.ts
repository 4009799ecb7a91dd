import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../logger.js';
import { createOutboundClient } from '../net/outbound.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import type { ScheduleRecord, Store } from '../store/types.js';
import { documentFromFields, type ScheduleFields } from './document.js';
import { createNotifier, type MailerLike } from './notify.js';
import { runSchedule, type RunnerDeps } from './runner.js';

const T0 = Date.parse('2024-02-28T13:47:12.000Z');

let server: http.Server;
let base: string;
let hits: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const path = new URL(req.url!, 'http://x').pathname;
      if (path === '/slow') return void setTimeout(() => res.end('late'), 3000).unref();
      if (path === '/big') return void res.end(Buffer.alloc(2 * 1024 * 1024 + 5, 'a'));
      if (path === '/fail') return void res.writeHead(503, { 'Content-Type': 'text/plain' }).end('down');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': ['a=1', 'b=2'] }).end('{"status":"healthy"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let store: Store;
let now: number;
let userId: number;
const clock = { now: () => now };
const http0 = createOutboundClient({ OUTBOUND_ALLOW_LOOPBACK: true, OUTBOUND_ALLOW_PRIVATE: true });

beforeEach(async () => {
  hits = [];
  now = T0;
  store = createSqliteStore(':memory:');
  userId = (await store.users.create({ name: 'u', email: 'owner@example.test', premium: true, created_at: 0, updated_at: 0 })).id;
});
afterEach(async () => store.close());

const fields = (over: Partial<ScheduleFields>): ScheduleFields => ({
  name: 'health',
  interval: '1-minute',
  cron: null,
  request_url: `${base}/ok`,
  request_method: 'GET',
  request_body: '',
  request_headers: '',
  timeout: 5,
  require_body: null,
  require_status_min: null,
  require_status_max: null,
  tls_expiry_alert_days: null,
  ...over,
});

async function schedule(over: Partial<ScheduleFields>): Promise<ScheduleRecord> {
  const doc = documentFromFields(fields(over));
  return store.schedules.create({ user_id: userId, document: doc as unknown as Record<string, unknown>, source: null, last_run_at: null, last_status: null, created_at: now, updated_at: now });
}

const deps = (over: Partial<RunnerDeps> = {}): RunnerDeps => ({ store, http: http0, clock, logger: silentLogger, ...over });

describe('schedule runner', () => {
  it('replaces global and built-in variables in URL, method, headers and body', async () => {
    const owner = `user:${userId}`;
    await store.globals.set(owner, 'method', 'patch', 0);
    await store.globals.set(owner, 'key', 'k1', 0);
    await store.globals.set(owner, 'secret', 's3cr3t', 0);
    await store.globals.set(owner, 'quote', 'say "hi"', 0);
    const s = await schedule({
      request_url: `${base}/ok?t=$timestamp$&k=$global.key$`,
      request_method: '$method$',
      request_headers: 'X-Date: $date$\nX-Secret: Bearer $secret$\nX-Multi: a\nX-Multi: b',
      request_body: '{"name":"$schedule.name$","at":"$date.iso$","q":"$quote.json$","left":"$unknown$"}',
    });
    const log = await runSchedule(deps(), s);
    expect(log.error, log.error ?? '').toBeNull();
    const hit = hits[0]!;
    expect(hit.method).toBe('PATCH');
    expect(hit.url).toBe(`/ok?t=${T0 / 1000}&k=k1`);
    expect(hit.headers['x-date']).toBe('2024-02-28 13:47:12');
    expect(hit.headers['x-secret']).toBe('Bearer s3cr3t');
    expect(hit.headers['x-multi']).toBe('a, b');
    expect(JSON.parse(hit.body)).toEqual({ name: 'health', at: '2024-02-28T13:47:12.000Z', q: 'say "hi"', left: '$unknown$' });
  });

  it('writes a log entry (status, headers as arrays, body, seconds) and updates last_run_at / last_status', async () => {
    const s = await schedule({});
    const log = await runSchedule(deps(), s);
    expect(log).toMatchObject({ schedule_id: s.id, response_status: 200, response_body: '{"status":"healthy"}', error: null, created_at: T0 });
    expect(log.response_headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(log.time).toBeGreaterThan(0);
    expect(log.time).toBeLessThan(5);
    expect(await store.schedules.get(s.id)).toMatchObject({ last_run_at: T0, last_status: 200 });
    expect((await store.schedules.listLogs(s.id, { sorting: 'oldest', page: 1, perPage: 10 })).items).toEqual([log]);
  });

  it('checks the status range and the body', async () => {
    const ok = await schedule({ require_status_min: 200, require_status_max: 299, require_body: 'healthy' });
    expect((await runSchedule(deps(), ok)).error).toBeNull();
    const low = await schedule({ require_status_min: 201 });
    expect((await runSchedule(deps(), low)).error).toBe('Check failed: status 200 is outside the required range 201-*');
    const both = await schedule({ request_url: `${base}/fail`, require_status_max: 299, require_body: 'up' });
    const log = await runSchedule(deps(), both);
    expect(log).toMatchObject({ response_status: 503, response_body: 'down' });
    expect(log.error).toBe('Check failed: status 503 is outside the required range *-299; the response body does not contain "up"');
  });

  it('a timeout is the entry error, with no status', async () => {
    const s = await schedule({ request_url: `${base}/slow`, timeout: 1 });
    const log = await runSchedule(deps(), s);
    expect(log.response_status).toBe(0);
    expect(log.error).toMatch(/Timed out after 1 s/);
    expect(log.time).toBeGreaterThanOrEqual(0.9);
    expect(log.time).toBeLessThan(2.5);
    expect((await store.schedules.get(s.id))!.last_status).toBe(0);
  });

  it('logs each run at info, and a failed one at warn with why', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('info', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>), 'json');
    const ok = await schedule({});
    await runSchedule(deps({ logger }), ok);
    const down = await schedule({ name: 'down', request_url: `${base}/fail` });
    await runSchedule(deps({ logger }), down);
    const checked = await schedule({ name: 'checked', require_body: 'nope' });
    await runSchedule(deps({ logger }), checked);
    expect(lines.map(({ time: _, ms: __, ...rest }) => rest)).toEqual([
      { level: 'info', msg: 'schedule ran', schedule: ok.id, name: 'health', status: 200 },
      { level: 'warn', msg: 'schedule run failed', schedule: down.id, name: 'down', status: 503, error: 'server error 503' },
      { level: 'warn', msg: 'schedule run failed', schedule: checked.id, name: 'checked', status: 200, error: 'Check failed: the response body does not contain "nope"' },
    ]);
    expect(typeof lines[0]!.ms).toBe('number');
  });

  it('keeps at most 1 MiB of the response body', async () => {
    const s = await schedule({ request_url: `${base}/big` });
    const log = await runSchedule(deps(), s);
    expect(log.response_body.length).toBe(1024 * 1024);
  });

  it('a URL that is not one after replacing variables is an error entry, not a crash', async () => {
    await store.globals.set(`user:${userId}`, 'host', 'not a host', 0);
    const s = await schedule({ request_url: 'http://$host$/x' });
    const log = await runSchedule(deps(), s);
    expect(log.response_status).toBe(0);
    expect(log.error).toMatch(/Invalid URL|failed/);
  });

  it('a method that still names an undefined variable is an error entry', async () => {
    const s = await schedule({ request_method: '$nope$' });
    const log = await runSchedule(deps(), s);
    expect(log.error).toBe('The method "$NOPE$" names a variable that is not defined');
    expect(hits).toEqual([]);
  });
});

describe('error notifications', () => {
  let mails: Array<{ to: string[]; subject: string; text?: string }>;
  const mailer: MailerLike = {
    async send(m) {
      mails.push(m);
      return {};
    },
  };
  beforeEach(() => {
    mails = [];
  });

  function notifier() {
    return createNotifier({ store, http: http0, clock, logger: silentLogger, mailer: () => mailer, windowMs: 3_600_000, baseUrl: () => 'http://capture.test' });
  }

  it('sends nothing unless the owner enabled a channel', async () => {
    const n = notifier();
    const s = await schedule({ request_url: `${base}/fail` });
    await runSchedule(deps({ onFailure: (x) => n.notify(x) }), s);
    await n.idle();
    expect(mails).toEqual([]);
  });

  it('a failing 1-minute schedule notifies once per window on every channel, then reports what it held back', async () => {
    await store.schedules.putNotificationSettings({ user_id: userId, email: null, email_enabled: true, webhook_url: `${base}/hook`, updated_at: 0 });
    const n = notifier();
    const s = await schedule({ request_url: `${base}/ok`, require_body: 'nope' });
    // Sixty failing runs, one a minute, within one hour window.
    now = Date.parse('2024-02-28T13:00:00Z');
    for (let i = 0; i < 60; i++) {
      await runSchedule(deps({ onFailure: (x) => n.notify(x) }), s);
      now += 60_000;
    }
    await n.idle();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['owner@example.test']);
    expect(mails[0]!.subject).toBe('Schedule "health" failed: Check failed: the response body does not contain "nope"');
    expect(mails[0]!.text).toContain('http://capture.test/schedules/');
    const hooks = hits.filter((h) => h.url === '/hook');
    expect(hooks).toHaveLength(1);
    const payload = JSON.parse(hooks[0]!.body);
    expect(payload).toMatchObject({ event: 'schedule.failed', schedule: { id: s.id, name: 'health' }, log: { schedule_id: s.id, response_status: 200 }, unreported_failures: 0 });
    // The next window: one more notification, counting the 59 held back.
    await runSchedule(deps({ onFailure: (x) => n.notify(x) }), s);
    await n.idle();
    expect(mails).toHaveLength(2);
    expect(mails[1]!.text).toContain('59 more failures since the previous notification');
    expect(JSON.parse(hits.filter((h) => h.url === '/hook')[1]!.body).unreported_failures).toBe(59);
  });

  it('a server error notifies even without checks; a success does not; the address may be overridden', async () => {
    await store.schedules.putNotificationSettings({ user_id: userId, email: 'ops@example.test', email_enabled: true, webhook_url: null, updated_at: 0 });
    const n = notifier();
    await runSchedule(deps({ onFailure: (x) => n.notify(x) }), await schedule({ request_url: `${base}/ok` }));
    await runSchedule(deps({ onFailure: (x) => n.notify(x) }), await schedule({ request_url: `${base}/fail` }));
    await n.idle();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['ops@example.test']);
    expect(mails[0]!.subject).toMatch(/server error 503/);
  });

  it('schedules are de-duplicated separately, and a broken channel does not stop the others', async () => {
    await store.schedules.putNotificationSettings({ user_id: userId, email: null, email_enabled: true, webhook_url: 'http://169.254.169.254/hook', updated_at: 0 });
    const n = notifier();
    const a = await schedule({ request_url: `${base}/fail` });
    const b = await schedule({ request_url: `${base}/fail` });
    for (const s of [a, b, a, b]) await runSchedule(deps({ onFailure: (x) => n.notify(x) }), s);
    await n.idle();
    expect(mails).toHaveLength(2);
  });
});
