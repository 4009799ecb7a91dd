import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { SCHEDULES } from '../../service-keys.js';

let s: TestServer;
let pro: { id: number; key: string };
let free: { id: number; key: string };

beforeAll(async () => {
  s = await startTestServer({ SCHEDULER_POLL_MS: '1000' });
  pro = await s.user(true);
  free = await s.user(false);
});
afterAll(async () => s?.close());

const body = (url: string, extra: Record<string, unknown> = {}) => ({
  name: 'ping',
  interval: 'hourly',
  request_method: 'POST',
  request_url: url,
  request_body: 'ping',
  request_headers: 'X-A: 1\nX-B: two',
  timeout: 5,
  ...extra,
});

async function target(extra: Record<string, unknown> = {}) {
  const t = await s.token(extra, pro.key);
  return { token: t, url: `${s.url}/${t.uuid}/from-schedule` };
}

describe('Schedules API', () => {
  it('creates, reads, lists, updates and deletes a schedule', async () => {
    const { url } = await target();
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body(url) });
    expect(c.status).toBe(200);
    expect(c.data).toMatchObject({
      name: 'ping',
      interval: 'hourly',
      cron: null,
      user_id: pro.id,
      request_method: 'POST',
      request_url: url,
      request_body: 'ping',
      request_headers: 'X-A: 1\nX-B: two',
      timeout: 5,
      require_body: null,
      require_status_min: null,
      require_status_max: null,
      last_run_at: null,
      last_status: null,
    });
    expect(c.data.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const id = c.data.id;
    expect((await s.call('GET', `/schedules/${id}`, { key: pro.key })).data).toEqual(c.data);
    const list = await s.call('GET', '/schedules?per_page=1', { key: pro.key });
    expect(list.status).toBe(200);
    expect(list.data).toMatchObject({ current_page: 1, per_page: 1, from: 1, to: 1 });
    expect(list.data.data).toHaveLength(1);
    const u = await s.call('PUT', `/schedules/${id}`, { key: pro.key, json: body(url, { name: 'renamed', interval: 'cron', cron: '*/5 * * * *', request_method: 'put', timeout: 30 }) });
    expect(u.status).toBe(200);
    expect(u.data).toMatchObject({ id, name: 'renamed', interval: 'cron', cron: '*/5 * * * *', request_method: 'PUT', timeout: 30 });
    expect((await s.call('DELETE', `/schedules/${id}`, { key: pro.key })).status).toBe(204);
    expect((await s.call('GET', `/schedules/${id}`, { key: pro.key })).status).toBe(404);
    expect((await s.call('DELETE', `/schedules/${id}`, { key: pro.key })).status).toBe(404);
  });

  it('defaults: GET, no body, no headers, 5 s timeout; cron is dropped unless interval is cron', async () => {
    const c = await s.call('POST', '/schedules', { key: pro.key, json: { interval: 'daily', cron: '* * * * *', request_url: 'http://example.test/' } });
    expect(c.status).toBe(200);
    expect(c.data).toMatchObject({ name: '', request_method: 'GET', request_body: '', request_headers: '', timeout: 5, cron: null });
  });

  it('keeps the schedule job in Agenda in step with the schedule', async () => {
    const { url } = await target();
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body(url, { interval: 'daily' }) });
    const { scheduler } = s.provided.get(SCHEDULES)!;
    const jobs = async () => (await scheduler.agenda.queryJobs({ name: 'schedule.run', data: { scheduleId: c.data.id } })).jobs;
    const [daily] = await jobs();
    expect(daily!.nextRunAt!.toISOString()).toMatch(/T00:00:00\.000Z$/);
    await s.call('PUT', `/schedules/${c.data.id}`, { key: pro.key, json: body(url, { interval: '1-minute' }) });
    const [minute] = await jobs();
    expect(minute!.nextRunAt!.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    await s.call('DELETE', `/schedules/${c.data.id}`, { key: pro.key });
    expect(await jobs()).toEqual([]);
  });

  it('run-now sends the request with its method, headers and body, and returns the log entry', async () => {
    const { token, url } = await target({ default_content: 'pong', default_status: 201 });
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body(url) });
    const run = await s.call('POST', `/schedules/${c.data.id}/run-now`, { key: pro.key });
    expect(run.status).toBe(200);
    expect(run.data).toMatchObject({ schedule_id: c.data.id, response_status: 201, response_body: 'pong', error: null });
    expect(typeof run.data.time).toBe('number');
    expect(run.data.response_headers['content-type']).toEqual([expect.stringContaining('text/html')]);
    const got = await s.call('GET', `/token/${token.uuid}/requests`, { key: pro.key });
    expect(got.data.total).toBe(1);
    expect(got.data.data[0]).toMatchObject({ method: 'POST', content: 'ping' });
    expect(got.data.data[0].headers['x-a']).toEqual(['1']);
    expect(got.data.data[0].headers['x-b']).toEqual(['two']);
    const after = await s.call('GET', `/schedules/${c.data.id}`, { key: pro.key });
    expect(after.data.last_run_at).toMatch(/^\d{4}-/);
    expect(after.data.last_status).toBe(201);
  });

  it('a failed check is the log entry error; a refused address too', async () => {
    const { url } = await target({ default_status: 500, default_content: 'boom' });
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body(url, { require_status_min: 200, require_status_max: 299, require_body: 'healthy' }) });
    const run = await s.call('POST', `/schedules/${c.data.id}/run-now`, { key: pro.key });
    expect(run.data).toMatchObject({ response_status: 500, response_body: 'boom' });
    expect(run.data.error).toMatch(/status 500 is outside the required range 200-299.*does not contain "healthy"/);
    const meta = await s.call('POST', '/schedules', { key: pro.key, json: body('http://169.254.169.254/latest/meta-data/') });
    const refused = await s.call('POST', `/schedules/${meta.data.id}/run-now`, { key: pro.key });
    expect(refused.status).toBe(200);
    expect(refused.data).toMatchObject({ response_status: 0, response_body: '' });
    expect(refused.data.error).toMatch(/refused.*169\.254\.169\.254/);
  });

  it('logs: envelope, sorting and paging', async () => {
    const { url } = await target();
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body(url) });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await s.call('POST', `/schedules/${c.data.id}/run-now`, { key: pro.key })).data.id);
    const oldest = await s.call('GET', `/schedules/${c.data.id}/logs`, { key: pro.key });
    expect(oldest.status).toBe(200);
    expect(oldest.data).toMatchObject({ total: 3, current_page: 1, last_page: 1, from: 1, to: 3, next_page_url: null, prev_page_url: null });
    expect(oldest.data.data.map((l: { id: number }) => l.id)).toEqual(ids);
    const newest = await s.call('GET', `/schedules/${c.data.id}/logs?sorting=newest&per_page=2&page=2`, { key: pro.key });
    expect(newest.data).toMatchObject({ total: 3, current_page: 2, last_page: 2, per_page: 2, from: 3, to: 3 });
    expect(newest.data.data.map((l: { id: number }) => l.id)).toEqual([ids[0]]);
    expect(newest.data.prev_page_url).toContain('page=1');
    expect(newest.data.prev_page_url).toContain('sorting=newest');
    expect((await s.call('GET', `/schedules/${c.data.id}/logs?sorting=sideways`, { key: pro.key })).status).toBe(422);
    expect((await s.call('GET', `/schedules/${c.data.id}/logs?per_page=101`, { key: pro.key })).status).toBe(422);
  });

  it('exports the schedule as a YAML workflow document and replaces it from one', async () => {
    const { url } = await target();
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body(url, { require_body: 'ok' }) });
    const y = await s.call('GET', `/schedules/${c.data.id}/document`, { key: pro.key });
    expect(y.status).toBe(200);
    expect(y.headers.get('content-type')).toMatch(/yaml/);
    const doc = YAML.parse(y.text);
    expect(doc).toMatchObject({
      apiVersion: 'capture/v1',
      kind: 'Schedule',
      metadata: { name: 'ping', owner: 'u1@example.test' },
      spec: { interval: 'hourly', request: { method: 'POST', url, headers: ['X-A: 1', 'X-B: two'], body: 'ping', timeout: 5 }, checks: { require_body: 'ok' } },
    });
    const j = await s.call('GET', `/schedules/${c.data.id}/document?format=json`, { key: pro.key });
    expect(j.data).toEqual(doc);
    doc.spec.interval = 'daily';
    doc.metadata.name = 'from yaml';
    const put = await s.call('PUT', `/schedules/${c.data.id}/document`, { key: pro.key, body: YAML.stringify(doc), headers: { 'Content-Type': 'application/yaml' } });
    expect(put.status).toBe(200);
    expect(put.data).toMatchObject({ id: c.data.id, name: 'from yaml', interval: 'daily', require_body: 'ok' });
    const bad = await s.call('PUT', `/schedules/${c.data.id}/document`, { key: pro.key, json: { ...doc, spec: { ...doc.spec, interval: 'yearly' } } });
    expect(bad.status).toBe(422);
    expect(bad.data.errors['spec.interval']).toBeDefined();
    const broken = await s.call('PUT', `/schedules/${c.data.id}/document`, { key: pro.key, body: 'a: [1, 2', headers: { 'Content-Type': 'text/yaml' } });
    expect(broken.status).toBe(400);
  });

  it('notification settings: defaults, update, validation', async () => {
    const d = await s.call('GET', '/schedules/notifications', { key: free.key });
    expect(d.data).toMatchObject({ user_id: free.id, email: null, email_enabled: false, webhook_url: null });
    const p = await s.call('PUT', '/schedules/notifications', { key: free.key, json: { email_enabled: true, webhook_url: 'https://hooks.example.test/x' } });
    expect(p.status).toBe(200);
    expect(p.data).toMatchObject({ email_enabled: true, webhook_url: 'https://hooks.example.test/x', email: null });
    expect((await s.call('PUT', '/schedules/notifications', { key: free.key, json: { webhook_url: 'ftp://x' } })).status).toBe(422);
    expect((await s.call('PUT', '/schedules/notifications', { key: free.key, json: { email: 'nope' } })).status).toBe(422);
    expect((await s.call('GET', '/schedules/notifications')).status).toBe(401);
  });
});

describe('Schedules API errors', () => {
  it('401 on every endpoint without a key; 401 with a wrong key', async () => {
    for (const [method, path] of [
      ['POST', '/schedules'],
      ['GET', '/schedules'],
      ['GET', '/schedules/1'],
      ['PUT', '/schedules/1'],
      ['DELETE', '/schedules/1'],
      ['POST', '/schedules/1/run-now'],
      ['GET', '/schedules/1/logs'],
      ['GET', '/schedules/1/document'],
      ['PUT', '/schedules/notifications'],
    ] as const) {
      const r = await s.call(method, path, { json: method === 'POST' || method === 'PUT' ? body('http://x.test/') : undefined });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(typeof r.data.message).toBe('string');
    }
    expect((await s.call('GET', '/schedules', { key: 'wrong-key-wrong-key' })).status).toBe(401);
  });

  it('403 for the administrator, who owns no schedules', async () => {
    const r = await s.call('POST', '/schedules', { key: ADMIN_KEY, json: body('http://x.test/') });
    expect(r.status).toBe(403);
    expect(r.data.message).toMatch(/user API key/);
  });

  it("404 for another user's schedule on every endpoint, and for ids that are not ids", async () => {
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body('http://x.test/') });
    const id = c.data.id;
    for (const [method, path] of [
      ['GET', `/schedules/${id}`],
      ['PUT', `/schedules/${id}`],
      ['DELETE', `/schedules/${id}`],
      ['POST', `/schedules/${id}/run-now`],
      ['GET', `/schedules/${id}/logs`],
      ['GET', `/schedules/${id}/document`],
      ['PUT', `/schedules/${id}/document`],
    ] as const) {
      const r = await s.call(method, path, { key: free.key, json: method === 'PUT' ? body('http://x.test/') : undefined });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await s.call('GET', '/schedules', { key: free.key })).data.data.some((x: { id: number }) => x.id === id)).toBe(false);
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999']) expect((await s.call('GET', `/schedules/${bad}`, { key: pro.key })).status).toBe(404);
    expect((await s.call('GET', `/schedules/${id}`, { key: pro.key })).status).toBe(200);
  });

  it.each([
    [{ interval: 'fortnightly' }, 'interval'],
    [{ interval: undefined }, 'interval'],
    [{ timeout: 31 }, 'timeout'],
    [{ timeout: 0 }, 'timeout'],
    [{ timeout: 2.5 }, 'timeout'],
    [{ interval: 'cron', cron: 'not a cron' }, 'cron'],
    [{ interval: 'cron', cron: '61 * * * *' }, 'cron'],
    [{ interval: 'cron' }, 'cron'],
    [{ request_url: 'not a url' }, 'request_url'],
    [{ request_url: 'ftp://example.test/' }, 'request_url'],
    [{ request_url: '/relative' }, 'request_url'],
    [{ request_url: undefined }, 'request_url'],
    [{ request_method: 'GE T' }, 'request_method'],
    [{ request_method: 'GET\r\nX: y' }, 'request_method'],
    [{ request_headers: 'no colon here' }, 'request_headers'],
    [{ request_headers: 'X-Ok: 1\nBad Name: 2' }, 'request_headers'],
    [{ require_status_min: 99 }, 'require_status_min'],
    [{ require_status_min: 300, require_status_max: 200 }, 'require_status_max'],
    [{ name: 5 }, 'name'],
  ])('422 for %j naming %s', async (extra, field) => {
    const r = await s.call('POST', '/schedules', { key: pro.key, json: body('http://x.test/', extra) });
    expect(r.status).toBe(422);
    expect(r.data.errors[field], JSON.stringify(r.data)).toBeDefined();
    expect(r.data.message).toMatch(new RegExp(`^${field}:`));
  });

  it('422 for bad list, logs and document queries, and for a multi-document body', async () => {
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body('http://x.test/') });
    expect((await s.call('GET', '/schedules?per_page=0', { key: pro.key })).status).toBe(422);
    expect((await s.call('GET', '/schedules?page=abc', { key: pro.key })).status).toBe(422);
    expect((await s.call('GET', `/schedules/${c.data.id}/document?format=xml`, { key: pro.key })).status).toBe(422);
    const y = (await s.call('GET', `/schedules/${c.data.id}/document`, { key: pro.key })).text;
    const two = await s.call('PUT', `/schedules/${c.data.id}/document`, { key: pro.key, body: `${y}---\n${y}`, headers: { 'Content-Type': 'application/yaml' } });
    expect(two.status).toBe(422);
    expect(two.data.message).toMatch(/exactly one document/);
    const extra = await s.call('PUT', `/schedules/${c.data.id}/document`, { key: pro.key, body: y.replace('spec:', 'spec:\n  typo: 1'), headers: { 'Content-Type': 'application/yaml' } });
    expect(extra.status).toBe(422);
  });

  it('422 on update too; 400 for malformed JSON', async () => {
    const c = await s.call('POST', '/schedules', { key: pro.key, json: body('http://x.test/') });
    expect((await s.call('PUT', `/schedules/${c.data.id}`, { key: pro.key, json: body('http://x.test/', { timeout: 99 }) })).status).toBe(422);
    const m = await s.call('POST', '/schedules', { key: pro.key, body: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(m.status).toBe(400);
  });

  it('429 with Retry-After after 60 log reads a minute', async () => {
    // Ten seconds into a minute, on a clock that stays there: a minute turning cannot reset the
    // count. No jobs run in this process (they would run on the wall clock).
    const limited = await startTestServer({ SCHEDULER_ENABLED: 'false' }, { clock: { now: () => Date.UTC(2024, 0, 2, 3, 4, 10) } });
    try {
      const u = await limited.user(true);
      const other = await limited.user(true);
      const c = await limited.call('POST', '/schedules', { key: u.key, json: body('http://x.test/') });
      expect(c.status, c.text).toBe(200);
      for (let i = 0; i < 60; i++) expect((await limited.call('GET', `/schedules/${c.data.id}/logs`, { key: u.key })).status).toBe(200);
      const r = await limited.call('GET', `/schedules/${c.data.id}/logs`, { key: u.key });
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('50');
      expect(r.data.message).toMatch(/60 per minute/);
      // Other users are not affected.
      expect((await limited.call('GET', `/schedules/${c.data.id}/logs`, { key: other.key })).status).toBe(404);
    } finally {
      await limited.close();
    }
  });
});
