import { describe, expect, it } from 'vitest';
import { accountGlobals } from '../actions/services.js';
import { fakeClock } from '../sdk/testing.js';
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
