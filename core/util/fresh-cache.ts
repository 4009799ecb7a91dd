// A per-key cache of values loaded asynchronously and kept for `ttlMs`: the steps and global
// variables caches of the action chains (core/workflows/steps-cache.ts, core/globals/cache.ts).
// A change made through this process drops the key at once (`forget`); another process sharing the
// store is seen within `ttlMs`. A load that started before a `forget` is answered but not kept.
import type { Clock } from './time.js';

/** Past this many keys the cache starts over (a bound on memory, not an LRU). */
const MAX_ENTRIES = 10_000;

export interface FreshCache<V> {
  /** The key's value, read with `load` (and passed through `keep`) unless a fresh one is kept. */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Drops the key's entry (its value changed here). */
  forget(key: string): void;
}

/** `keep` turns a loaded value into the shared one (e.g. frozen: every caller gets the same object). */
export function createFreshCache<V>(clock: Pick<Clock, 'now'>, ttlMs: number, keep: (loaded: V) => V): FreshCache<V> {
  const entries = new Map<string, { value: V; until: number }>();
  // Bumped by every forget: a read that started before a change is not kept after it.
  let generation = 0;
  async function loadAndKeep(key: string, load: () => Promise<V>, now: number): Promise<V> {
    const started = generation;
    const value = keep(await load());
    if (started === generation) {
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(key, { value, until: now + ttlMs });
    }
    return value;
  }
  return {
    // A hit (every chain capture reads two of these) is one resolved promise, no async function.
    get(key, load) {
      const now = clock.now();
      const hit = entries.get(key);
      if (hit && hit.until > now) return Promise.resolve(hit.value);
      return loadAndKeep(key, load, now);
    },
    forget(key) {
      generation++;
      entries.delete(key);
    },
  };
}
