// The steps a capture runs, kept per token for a moment: reading and parsing the workflow document
// on every capture was one of the larger costs of a short chain. As with the token cache
// (core/capture/token-cache.ts), changes made through this process drop the entry at once
// (`forget`, called by the workflow service when it saves); another process sharing the store is
// seen within `ttlMs`. Cached steps are frozen: every capture of the token shares them.
import type { Clock } from '../util/time.js';
import type { Step } from './document.js';

const MAX_ENTRIES = 10_000;

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
  const entries = new Map<string, { steps: Step[]; until: number }>();
  // Bumped by every forget: a read that started before a change is not kept after it.
  let generation = 0;
  return {
    async get(tokenId, load) {
      const hit = entries.get(tokenId);
      const now = clock.now();
      if (hit && hit.until > now) return hit.steps;
      const started = generation;
      const steps = deepFreeze(await load());
      if (started === generation) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(tokenId, { steps, until: now + ttlMs });
      }
      return steps;
    },
    forget(tokenId) {
      generation++;
      entries.delete(tokenId);
    },
  };
}
