// The steps a capture runs, kept per token for a moment: reading and parsing the workflow document
// on every capture was one of the larger costs of a short chain. As with the token cache
// (core/capture/token-cache.ts), changes made through this process drop the entry at once
// (`forget`, called by the workflow service when it saves); another process sharing the store is
// seen within `ttlMs`. Cached steps are frozen: every capture of the token shares them.
import { createFreshCache } from '../util/fresh-cache.js';
import type { Clock } from '../util/time.js';
import type { Step } from './document.js';

export interface StepsCache {
  /** The token's steps, read with `load` unless a fresh copy is kept. */
  get(tokenId: string, load: () => Promise<Step[]>): Promise<Step[]>;
  /** Drops the token's entry (its workflow changed here). */
  forget(tokenId: string): void;
}

/** Freezes `value` and everything it holds (shared cached data: no run may change it). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function createStepsCache(clock: Pick<Clock, 'now'>, ttlMs = 1000): StepsCache {
  return createFreshCache<Step[]>(clock, ttlMs, deepFreeze);
}
