import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../test/helpers/server.js';
import { accountGlobals } from '../actions/services.js';
import { fakeClock } from '@capture/sdk/testing';
import { createGlobalsCache, globalsCacheOf, globalsChanged } from './cache.js';

/** A store of one account's variables that counts its reads of all of them. */
function memoryStore() {
  const values = new Map<string, { id: number; value: string }>();
  let id = 0;
  const store = {
    reads: 0,
    get: async (_owner: string, name: string) => values.get(name) ?? null,
    set: async (_owner: string, name: string, value: string) => void values.set(name, { id: ++id, value }),
    all: async () => (store.reads++, Object.fromEntries([...values].map(([k, v]) => [k, v.value]))),
    delete: async (_owner: string, gone: number) => [...values].some(([k, v]) => v.id === gone && values.delete(k)),
  };
  return store;
}

describe('global variables cache', () => {
  it('serves all() for ttlMs, and a write through the account view or globalsChanged drops the entry at once', async () => {
    const clock = fakeClock();
    const store = memoryStore();
    const cache = globalsCacheOf(store, clock);
    const g = accountGlobals(store, 'user:1', clock, cache);
    await g.set('a', '1');
    expect(await g.all()).toEqual({ a: '1' });
    expect(await g.all()).toEqual({ a: '1' });
    expect(store.reads).toBe(1);
    await g.set('b', '2');
    expect(await g.all()).toEqual({ a: '1', b: '2' });
    expect(await g.delete('a')).toBe(true);
    expect(await g.all()).toEqual({ b: '2' });
    // Written elsewhere in this process (the API): told through globalsChanged.
    await store.set('user:1', 'c', '3');
    globalsChanged(store, 'user:1');
    expect(await g.all()).toEqual({ b: '2', c: '3' });
    // Written by another process: seen once the entry is older than the TTL.
    await store.set('user:1', 'd', '4');
    expect(await g.all()).toEqual({ b: '2', c: '3' });
    clock.advance(1000);
    expect(await g.all()).toEqual({ b: '2', c: '3', d: '4' });
  });

  it('all() gives each caller its own copy of the kept values', async () => {
    const store = memoryStore();
    const g = accountGlobals(store, 'user:1', fakeClock(), createGlobalsCache(fakeClock()));
    await g.set('a', '1');
    const first = await g.all();
    first.a = 'changed';
    expect(await g.all()).toEqual({ a: '1' });
    expect(await g.all()).not.toBe(await g.all());
  });

  it('does not keep a read that started before a change', async () => {
    const cache = createGlobalsCache(fakeClock());
    let release: (v: Record<string, string>) => void = () => {};
    const slow = cache.all('o', () => new Promise((r) => (release = r)));
    cache.forget('o');
    release({ old: '1' });
    expect(await slow).toEqual({ old: '1' });
    expect(await cache.all('o', async () => ({ fresh: '1' }))).toEqual({ fresh: '1' });
  });
});

describe("an account's global variables across captures", () => {
  it("a value one capture's chain stores is read by the next capture and by the API; an API change by the one after", async () => {
    const s = await startTestServer();
    try {
      const owner = await s.user(true);
      const t = await s.token({ actions: true }, owner.key);
      const steps = [
        { type: 'log', parameters: { text: 'before=$global.counter$' } },
        { type: 'store_global_variable', parameters: { name: 'counter', value: '$request.content$' } },
      ];
      for (const [i, a] of steps.entries()) expect((await s.call('POST', `/token/${t.uuid}/actions`, { key: owner.key, json: { ...a, order: i + 1 } })).status).toBeLessThan(300);
      const logged = async (body: string) => {
        await s.call('POST', `/${t.uuid}`, { body });
        const latest = (await s.call('GET', `/token/${t.uuid}/request/latest`, { key: owner.key })).data;
        return (latest.custom_action_output as string[]).find((l) => l.includes('before='));
      };
      expect(await logged('one')).toMatch(/before=\$global\.counter\$$/);
      expect(await logged('two')).toMatch(/before=one$/);
      expect(JSON.stringify((await s.call('GET', '/global-variables', { key: owner.key })).data)).toContain('two');
      const list = (await s.call('GET', '/global-variables', { key: owner.key })).data;
      const id = (list.data ?? list).find((g: { name: string }) => g.name === 'counter')?.id;
      expect((await s.call('PUT', `/global-variables/${id}`, { key: owner.key, json: { name: 'counter', value: 'api' } })).status).toBeLessThan(300);
      expect(await logged('three')).toMatch(/before=api$/);
    } finally {
      await s.close();
    }
  });
});
