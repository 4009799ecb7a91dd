// The capture path's token cache: hits within its time to live, misses and forgets, and the table of
// slots in front of its map (two references in one slot must each find their own token).
import { describe, expect, it } from 'vitest';
import { sampleToken } from '../store/store.contract.js';
import type { Store, TokenRecord } from '../store/types.js';
import { createTokenCache } from './token-cache.js';

/** A store whose tokens are `known` (by UUID or alias), counting the look-ups that reach it. */
function storeOf(known: TokenRecord[]) {
  const calls: string[] = [];
  const store = {
    tokens: {
      async resolve(ref: string) {
        calls.push(ref);
        return known.find((t) => t.uuid === ref || t.alias === ref) ?? null;
      },
    },
  } as unknown as Store;
  return { store, calls };
}

function clockAt(start: number) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

describe('token cache', () => {
  it('answers from memory within its time to live, then asks the store again', async () => {
    const token = sampleToken();
    const { store, calls } = storeOf([token]);
    const clock = clockAt(1_000);
    const cache = createTokenCache(store, clock as never, 1000);
    expect(cache.peek(token.uuid)).toBeUndefined();
    expect(await cache.resolve(token.uuid)).toBe(token);
    // A reference built anew, as each request's URL gives one.
    const again = `/${token.uuid}`.slice(1);
    expect(cache.peek(again)).toBe(token);
    expect(await cache.resolve(again)).toBe(token);
    expect(calls).toEqual([token.uuid]);
    clock.t += 1000;
    expect(cache.peek(token.uuid)).toBeUndefined();
    expect(await cache.resolve(token.uuid)).toBe(token);
    expect(calls).toHaveLength(2);
  });

  it('keeps no miss: an unknown reference asks the store every time', async () => {
    const { store, calls } = storeOf([]);
    const cache = createTokenCache(store, clockAt(0) as never);
    expect(await cache.resolve('nope')).toBeNull();
    expect(await cache.resolve('nope')).toBeNull();
    expect(cache.peek('nope')).toBeUndefined();
    expect(calls).toEqual(['nope', 'nope']);
  });

  it('finds each of two references that share a slot (same last characters)', async () => {
    const a = sampleToken({ uuid: '00000000-0000-4000-8000-00000000abcd' });
    const b = sampleToken({ uuid: '11111111-1111-4111-8111-11111111abcd' });
    const { store, calls } = storeOf([a, b]);
    const cache = createTokenCache(store, clockAt(0) as never);
    expect(await cache.resolve(a.uuid)).toBe(a);
    expect(await cache.resolve(b.uuid)).toBe(b);
    for (let i = 0; i < 3; i++) {
      expect(cache.peek(a.uuid)).toBe(a);
      expect(cache.peek(b.uuid)).toBe(b);
    }
    expect(calls).toHaveLength(2);
  });

  it('forgets a token by UUID and by alias', async () => {
    const token = sampleToken({ alias: 'my-hook' });
    const { store, calls } = storeOf([token]);
    const cache = createTokenCache(store, clockAt(0) as never);
    await cache.resolve(token.uuid);
    await cache.resolve('my-hook');
    expect(cache.peek('my-hook')).toBe(token);
    cache.forget(token);
    expect(cache.peek(token.uuid)).toBeUndefined();
    expect(cache.peek('my-hook')).toBeUndefined();
    await cache.resolve('my-hook');
    expect(calls).toEqual([token.uuid, 'my-hook', 'my-hook']);
  });
});
