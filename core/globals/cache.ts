// Each account's global variables as action chains read them (every run reads them all), kept for
// a moment: reading them from the store on every capture was a fixed cost of every chain. As with
// the steps cache (core/workflows/steps-cache.ts), a change made through this process drops the
// account's entry at once (actions' writes in core/actions/services.ts, the API's in
// core/http/globals/globals.router.ts); another process sharing the store, or a direct write to
// the store (an import), is seen within `ttlMs`.
import { createFreshCache } from '../util/fresh-cache.js';
import type { Clock } from '../util/time.js';

export const GLOBALS_CACHE_TTL_MS = 1000;

export interface GlobalsCache {
  /** The owner's variables (frozen: copy before changing), read with `load` unless a fresh copy is kept. */
  all(owner: string, load: () => Promise<Record<string, string>>): Promise<Readonly<Record<string, string>>>;
  /** Drops the owner's entry (its variables changed here). */
  forget(owner: string): void;
}

export function createGlobalsCache(clock: Pick<Clock, 'now'>, ttlMs = GLOBALS_CACHE_TTL_MS): GlobalsCache {
  const cache = createFreshCache<Readonly<Record<string, string>>>(clock, ttlMs, Object.freeze);
  return { all: (owner, load) => cache.get(owner, load), forget: (owner) => cache.forget(owner) };
}

/** One cache per store repository (a process may run several stores: tests, imports). */
const caches = new WeakMap<object, GlobalsCache>();

/** The cache of `repo` (the store's global variables), made on first use. */
export function globalsCacheOf(repo: object, clock: Pick<Clock, 'now'>): GlobalsCache {
  let cache = caches.get(repo);
  if (!cache) caches.set(repo, (cache = createGlobalsCache(clock)));
  return cache;
}

/** Tells the cache of `repo`, if there is one, that `owner`'s variables changed. */
export function globalsChanged(repo: object, owner: string): void {
  caches.get(repo)?.forget(owner);
}
