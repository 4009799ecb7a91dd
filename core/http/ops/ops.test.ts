import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../store/sqlite/index.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { sample } from '../../../test/helpers/metrics.js';
import { MAIL_INFO } from '../../service-keys.js';

describe('/metrics', () => {
  let s: TestServer;
  let owner: { id: number; key: string };
  const scrape = async () => {
    const r = await s.call('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return r.text;
  };

  beforeAll(async () => {
    s = await startTestServer({ EMAIL_DOMAIN: 'mail.example.test' });
    owner = await s.user(true);
  });
  afterAll(() => s?.close());

  it('counts a stored HTTP capture, its latency and the store batch that committed it', async () => {
    const before = await scrape();
    const t = await s.token({}, owner.key);
    expect((await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: 'x' })).status).toBe(200);
    const after = await scrape();
    const stored = { channel: 'http', outcome: 'stored' };
    expect(sample(after, 'capture_captures_total', stored)).toBe(sample(before, 'capture_captures_total', stored) + 1);
    expect(sample(after, 'capture_http_capture_duration_seconds_count')).toBe(sample(before, 'capture_http_capture_duration_seconds_count') + 1);
    expect(sample(after, 'capture_store_write_batch_size_count')).toBeGreaterThan(sample(before, 'capture_store_write_batch_size_count'));
    expect(sample(after, 'capture_store_write_batch_size_sum')).toBeGreaterThan(sample(before, 'capture_store_write_batch_size_sum'));
    expect(sample(after, 'capture_store_commit_duration_seconds_count')).toBeGreaterThan(0);
    // The capture list catches up first: the stored capture went through a catch-up, counted and timed.
    expect((await fetch(`${s.url}/token/${t.uuid}/requests`, { headers: { 'Api-Key': owner.key } })).status).toBe(200);
    const caught = await scrape();
    expect(sample(caught, 'capture_store_catchup_rows_total')).toBeGreaterThan(sample(before, 'capture_store_catchup_rows_total'));
    expect(sample(caught, 'capture_store_catchup_duration_seconds_count')).toBeGreaterThan(sample(before, 'capture_store_catchup_duration_seconds_count'));
    // Process metrics come along, and no label carries the token.
    expect(after).toContain('capture_process_resident_memory_bytes');
    expect(after).not.toContain(t.uuid);
  });

  it('counts refused captures by status class', async () => {
    const before = await scrape();
    expect((await fetch(`${s.url}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    const after = await scrape();
    const rejected = { channel: 'http', outcome: 'rejected', status: '4xx' };
    expect(sample(after, 'capture_captures_total', rejected)).toBe(sample(before, 'capture_captures_total', rejected) + 1);
  });

  it('counts action runs and failures by type, and sandbox run time', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const add = (json: Record<string, unknown>) => s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json });
    expect((await add({ type: 'javascript', parameters: { script: "throw new Error('boom')" } })).status).toBe(200);
    const before = await scrape();
    await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: 'x' });
    const latest = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;
    expect(JSON.stringify(latest.custom_action_errors)).toContain('boom');
    const after = await scrape();
    const js = { type: 'javascript' };
    expect(sample(after, 'capture_action_runs_total', js)).toBe(sample(before, 'capture_action_runs_total', js) + 1);
    expect(sample(after, 'capture_action_failures_total', js)).toBe(sample(before, 'capture_action_failures_total', js) + 1);
    expect(sample(after, 'capture_sandbox_run_duration_seconds_count')).toBe(sample(before, 'capture_sandbox_run_duration_seconds_count') + 1);
    expect(after).toMatch(/^capture_sandbox_queue_depth 0$/m);
  });

  it('counts a captured e-mail, and a refused one by SMTP reply class', async () => {
    const t = await s.token({}, owner.key);
    const before = await scrape();
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: s.provided.get(MAIL_INFO)!.port!, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ from: 'a@sender.test', to: `${t.uuid}@mail.example.test`, subject: 'hi', text: 'hello' });
      await expect(transport.sendMail({ from: 'a@sender.test', to: 'nobody@mail.example.test', subject: 'hi', text: 'hello' })).rejects.toMatchObject({ responseCode: 550 });
    } finally {
      transport.close();
    }
    const after = await scrape();
    const email = { channel: 'email', outcome: 'stored' };
    expect(sample(after, 'capture_captures_total', email)).toBe(sample(before, 'capture_captures_total', email) + 1);
    const refused = { channel: 'email', outcome: 'rejected', status: '5xx' };
    expect(sample(after, 'capture_captures_total', refused)).toBe(sample(before, 'capture_captures_total', refused) + 1);
  });

  it('counts schedule runs and failures', async () => {
    const target = await s.token({ default_status: 500 }, owner.key);
    const c = await s.call('POST', '/schedules', { key: owner.key, json: { name: 'm', interval: 'hourly', request_method: 'GET', request_url: `${s.url}/${target.uuid}`, timeout: 5 } });
    expect(c.status).toBe(200);
    const before = await scrape();
    expect((await s.call('POST', `/schedules/${c.data.id}/run-now`, { key: owner.key })).status).toBe(200);
    const after = await scrape();
    expect(sample(after, 'capture_schedule_runs_total')).toBe(sample(before, 'capture_schedule_runs_total') + 1);
    expect(sample(after, 'capture_schedule_failures_total')).toBe(sample(before, 'capture_schedule_failures_total') + 1);
  });

  it('shows live SSE subscribers', async () => {
    const t = await s.token({}, owner.key);
    const abort = new AbortController();
    const res = await fetch(`${s.url}/token/${t.uuid}/events`, { headers: { 'Api-Key': owner.key }, signal: abort.signal });
    expect(res.status).toBe(200);
    try {
      expect(sample(await scrape(), 'capture_realtime_subscribers', { transport: 'sse' })).toBe(1);
    } finally {
      abort.abort();
    }
  });
});

describe('/healthz and /readyz', () => {
  let s: TestServer;
  let storeDown = false;
  beforeAll(async () => {
    const store = createSqliteStore(':memory:');
    const ping = store.ping.bind(store);
    store.ping = async () => {
      if (storeDown) throw new Error('connection refused');
      await ping();
    };
    s = await startTestServer({}, { store });
  });
  afterAll(() => s?.close());

  it('/readyz is 200 once every module started and the store answers', async () => {
    const r = await s.call('GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ status: 'ready', store: 'sqlite' });
    expect(r.data.modules).toEqual(expect.arrayContaining(['actions', 'scheduler', 'realtime']));
  });

  it('/readyz is 503 with a reason when the store does not answer; /healthz stays 200', async () => {
    storeDown = true;
    try {
      const r = await s.call('GET', '/readyz');
      expect(r.status).toBe(503);
      expect(r.data).toEqual({ status: 'unavailable', reason: 'the sqlite store does not answer: connection refused' });
      expect((await s.call('GET', '/healthz')).status).toBe(200);
    } finally {
      storeDown = false;
    }
    expect((await s.call('GET', '/readyz')).status).toBe(200);
  });
});
