import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { deepFreeze } from '../workflows/steps-cache.js';
import { splitQueued } from './queued.js';

describe('splitQueued', () => {
  it('groups consecutive queued actions with the same delay', () => {
    const s = (id: string, queue = false, delay = 0) => ({ id, type: 't', parameters: {}, disabled: false, queue, delay });
    const { inline, groups } = splitQueued([s('a'), s('b', true, 5), s('c', true, 5), s('d'), s('e', true, 5), s('f', true, 0)]);
    expect(inline.map((x) => x.id)).toEqual(['a', 'd']);
    expect(groups.map((g) => [g.delay, g.steps.map((x) => x.id)])).toEqual([
      [5, ['b', 'c']],
      [5, ['e']],
      [0, ['f']],
    ]);
  });

  it('splits cached (frozen) steps once: the same frozen answer for every run, equal to a fresh split', () => {
    const s = (id: string, queue = false, delay = 0) => ({ id, type: 't', parameters: {}, disabled: false, queue, delay });
    const steps = () => [s('a'), s('b', true, 5), s('c'), s('d', true, 0)];
    const frozen = deepFreeze(steps());
    const first = splitQueued(frozen);
    expect(splitQueued(frozen)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.inline) && Object.isFrozen(first.groups[0]!.steps)).toBe(true);
    expect(first).toEqual(splitQueued(steps()));
    expect(splitQueued(steps())).not.toBe(splitQueued(steps()));
  });
});

describe('queued actions', () => {
  let s: TestServer;
  let owner: { id: number; key: string };
  beforeAll(async () => {
    s = await startTestServer({ SCHEDULER_POLL_MS: '100' });
    owner = await s.user(true);
  });
  afterAll(() => s?.close());

  const latest = async (uuid: string) => (await s.call('GET', `/token/${uuid}/request/latest`, { key: owner.key })).data;
  const waitFor = async <T>(fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('run after the capture is answered, with the variables the inline actions left, and log on the request', async () => {
    const t = await s.token({ actions: true, default_content: 'answered' }, owner.key);
    const add = (json: Record<string, unknown>) => s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json });
    await add({ type: 'javascript', parameters: { script: "set('x', '42')" } });
    expect((await add({ type: 'javascript', queue: true, delay: 1, parameters: { script: "console.log('queued sees ' + get('x'))" } })).status).toBe(200);
    await add({ type: 'javascript', queue: true, delay: 1, parameters: { script: "console.log('second in the same job')" } });
    const t0 = Date.now();
    const r = await s.call('POST', `/${t.uuid}`, { body: 'x' });
    expect(r.text).toBe('answered');
    const first = await latest(t.uuid);
    expect(JSON.stringify(first.custom_action_output)).toContain('Queued 2 action(s) to run in 1 s');
    expect(JSON.stringify(first.custom_action_output)).not.toContain('queued sees');
    const done = await waitFor(async () => {
      const q = await latest(t.uuid);
      return JSON.stringify(q.custom_action_output).includes('second in the same job') ? q : undefined;
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(JSON.stringify(done.custom_action_output)).toContain('queued sees 42');
  });

  it('run on a request that was not stored (dont_save) from the snapshot in the job', async () => {
    const t = await s.token({ actions: true }, owner.key);
    const sink = await s.token({}, owner.key);
    await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { type: 'dont_save', parameters: {} } });
    await s.call('POST', `/token/${t.uuid}/actions`, {
      key: owner.key,
      json: { type: 'javascript', queue: true, parameters: { script: `await fetch('${s.url}/${sink.uuid}', { method: 'POST', body: 'from queue: ' + get('request.content') })` } },
    });
    await s.call('POST', `/${t.uuid}`, { body: 'hello' });
    const got = await waitFor(async () => {
      const q = await s.call('GET', `/token/${sink.uuid}/request/latest`, { key: owner.key });
      return q.status === 200 ? q.data : undefined;
    });
    expect(got.content).toBe('from queue: hello');
    expect((await s.call('GET', `/token/${t.uuid}/requests`, { key: owner.key })).data.total).toBe(0);
  });
});
