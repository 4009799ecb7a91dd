// Queue Profiles through the API on a real service: create, list, update, delete per user, bad
// input refused, actions naming one, and queued jobs of a profile run throttled and in order.
// (Two processes sharing the counters: test/multi-instance.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let s: TestServer;
let ann: { id: number; key: string };
let bob: { id: number; key: string };
beforeAll(async () => {
  s = await startTestServer({ SCHEDULER_POLL_MS: '100' });
  ann = await s.user(true);
  bob = await s.user(true);
});
afterAll(() => s?.close());

describe('queue profiles API', () => {
  it('creates with defaults, lists, reads, updates and deletes a user’s profiles', async () => {
    const made = await s.call('POST', '/queue-profiles', { key: ann.key, json: { name: 'crm api', rate_limit: 100, rate_period: 60 } });
    expect(made.status).toBe(200);
    expect(made.data).toMatchObject({ user_id: ann.id, name: 'crm api', rate_limit: 100, rate_period: 60, initial_delay: 0, job_lifetime: 86_400 });
    expect(made.data.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const id = made.data.id as string;
    expect((await s.call('GET', '/queue-profiles', { key: ann.key })).data.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await s.call('GET', '/queue-profiles', { key: bob.key })).data.data).toEqual([]);
    expect((await s.call('GET', `/queue-profiles/${id}`, { key: ann.key })).data.name).toBe('crm api');
    const put = await s.call('PUT', `/queue-profiles/${id}`, { key: ann.key, json: { rate_limit: 10, initial_delay: 5 } });
    expect(put.data).toMatchObject({ id, name: 'crm api', rate_limit: 10, rate_period: 60, initial_delay: 5 });
    // Another user's profile is not found, for reading, changing and deleting.
    expect((await s.call('GET', `/queue-profiles/${id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('PUT', `/queue-profiles/${id}`, { key: bob.key, json: { rate_limit: 1 } })).status).toBe(404);
    expect((await s.call('DELETE', `/queue-profiles/${id}`, { key: bob.key })).status).toBe(404);
    expect((await s.call('DELETE', `/queue-profiles/${id}`, { key: ann.key })).status).toBe(204);
    expect((await s.call('GET', `/queue-profiles/${id}`, { key: ann.key })).status).toBe(404);
    expect((await s.call('GET', '/queue-profiles')).status).toBe(401);
  });

  it('refuses bad input with 422 naming the field, storing nothing', async () => {
    for (const [json, field] of [
      [{ rate_limit: 1, rate_period: 60 }, 'name'],
      [{ name: 'x', rate_period: 60 }, 'rate_limit'],
      [{ name: 'x', rate_limit: 0, rate_period: 60 }, 'rate_limit'],
      [{ name: 'x', rate_limit: 1, rate_period: 86_401 }, 'rate_period'],
      [{ name: 'x', rate_limit: 1, rate_period: 60, job_lifetime: 8 * 86_400 }, 'job_lifetime'],
      [{ name: 'x', rate_limit: 1, rate_period: 60, initial_delay: -1 }, 'initial_delay'],
      [{ name: 'x'.repeat(101), rate_limit: 1, rate_period: 60 }, 'name'],
    ] as const) {
      const r = await s.call('POST', '/queue-profiles', { key: bob.key, json });
      expect(r.status, JSON.stringify(json)).toBe(422);
      expect(r.data.errors[field], JSON.stringify(json)).toBeDefined();
    }
    expect((await s.call('POST', '/queue-profiles', { key: bob.key, body: '{nope', headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
    expect((await s.call('GET', '/queue-profiles', { key: bob.key })).data.data).toEqual([]);
  });

  it("an action names one of its owner's profiles, shown by the actions API and the workflow document", async () => {
    const mine = (await s.call('POST', '/queue-profiles', { key: ann.key, json: { name: 'mine', rate_limit: 5, rate_period: 1 } })).data;
    const theirs = (await s.call('POST', '/queue-profiles', { key: bob.key, json: { name: 'theirs', rate_limit: 5, rate_period: 1 } })).data;
    const t = await s.token({ actions: true }, ann.key);
    const log = { type: 'log', parameters: { text: 'x' }, queue: true };
    const bad = await s.call('POST', `/token/${t.uuid}/actions`, { key: ann.key, json: { ...log, queue_profile: theirs.id } });
    expect(bad.status).toBe(422);
    expect(bad.data.errors.queue_profile).toBeDefined();
    const ok = await s.call('POST', `/token/${t.uuid}/actions`, { key: ann.key, json: { ...log, queue_profile: mine.id } });
    expect(ok.status).toBe(200);
    expect(ok.data).toMatchObject({ queue: true, queue_profile: mine.id });
    const doc = (await s.call('GET', `/token/${t.uuid}/workflow`, { key: ann.key })).data;
    expect(doc.spec.steps[0].queue_profile).toBe(mine.id);
    doc.spec.steps[0].queue_profile = theirs.id;
    const put = await s.call('PUT', `/token/${t.uuid}/workflow`, { key: ann.key, json: doc });
    expect(put.status).toBe(422);
    expect(Object.keys(put.data.errors)).toEqual(['spec.steps.0.queue_profile']);
    const cleared = await s.call('PUT', `/token/${t.uuid}/actions/${ok.data.uuid}`, { key: ann.key, json: { ...log, queue_profile: null } });
    expect(cleared.data.queue_profile).toBeNull();
  });

  it('runs the jobs of a profile in order, at most rate_limit per period, sharing variables within a group', { timeout: 60_000 }, async () => {
    const profile = (await s.call('POST', '/queue-profiles', { key: ann.key, json: { name: 'slow api', rate_limit: 2, rate_period: 2 } })).data;
    const t = await s.token({ actions: true }, ann.key);
    for (const step of [
      { type: 'set_variable', parameters: { name: 'n', value: '$request.content$' } },
      { type: 'set_variable', parameters: { name: 'at', mode: 'date', date: { input: 'now', format: 'unixmicro' } } },
      { type: 'log', parameters: { text: 'ran $n$ at $at$' } },
    ]) {
      expect((await s.call('POST', `/token/${t.uuid}/actions`, { key: ann.key, json: { ...step, queue: true, queue_profile: profile.id } })).status).toBe(200);
    }
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: String(i) });
      ids.push(r.headers.get('x-request-id')!);
    }
    // When each job ran, as the job itself saw the clock (in microseconds).
    const ranAt = new Map<string, number>();
    const deadline = Date.now() + 45_000;
    while (ranAt.size < 5 && Date.now() < deadline) {
      for (const id of ids) {
        if (ranAt.has(id)) continue;
        const r = (await s.call('GET', `/token/${t.uuid}/request/${id}`, { key: ann.key })).data;
        const line = r.custom_action_output.map((l: string) => / ran (\d) at (\d+)$/.exec(l)).find(Boolean);
        if (line) ranAt.set(id, Number(line[2]) / 1000);
        if (line) expect(line[1]).toBe(String(ids.indexOf(id) + 1));
      }
      await new Promise((done) => setTimeout(done, 50));
    }
    expect(ranAt.size).toBe(5);
    const first = (await s.call('GET', `/token/${t.uuid}/request/${ids[0]}`, { key: ann.key })).data.custom_action_output;
    expect(first).toContain('Queued 3 action(s) to run in 0 s in Queue Profile "slow api"');
    // In capture order, and at most 2 in any 2 s (the window slides, so an aligned one holds 2 too): 5 need 3.
    const times = ids.map((id) => ranAt.get(id)!);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const perWindow = new Map<number, number>();
    for (const at of times) perWindow.set(Math.floor(at / 2000), (perWindow.get(Math.floor(at / 2000)) ?? 0) + 1);
    expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(2);
    expect(perWindow.size).toBeGreaterThanOrEqual(3);
  });

  it('a job that cannot run within its lifetime is given up and reported', { timeout: 30_000 }, async () => {
    // One job a minute, living 1 s: the second waits for the next minute and expires first.
    const profile = (await s.call('POST', '/queue-profiles', { key: bob.key, json: { name: 'tight', rate_limit: 1, rate_period: 3600, job_lifetime: 1 } })).data;
    const t = await s.token({ actions: true }, bob.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: bob.key, json: { type: 'log', parameters: { text: 'ran' }, queue: true, queue_profile: profile.id } });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await fetch(`${s.url}/${t.uuid}`, { method: 'POST', body: 'x' })).headers.get('x-request-id')!);
    const deadline = Date.now() + 20_000;
    let errors: any[] = [];
    while (Date.now() < deadline) {
      errors = (await s.call('GET', `/errors?query=expired`, { key: bob.key })).data.data;
      if (errors.length) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ source: 'action', token_id: t.uuid, request_id: ids[1], action_type: 'log' });
    expect(errors[0].message).toBe('Queue Profile "tight": the job expired before it could run (1 action(s) not run)');
    const second = (await s.call('GET', `/token/${t.uuid}/request/${ids[1]}`, { key: bob.key })).data;
    expect(second.custom_action_errors[0].message).toMatch(/expired before it could run/);
  });
});
