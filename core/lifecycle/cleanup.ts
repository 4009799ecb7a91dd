// Token retention (seed: States and transitions): a token whose expires_at has passed is deleted
// with its data; a non-premium token (or one created with the legacy `expiry: true`) with no
// requests for a week is deleted too. Short-lived records past their time (rate-limit windows,
// set-response waits a dead process left open) are swept as well: MongoDB's TTL indexes reap them
// too, but not every server runs a TTL monitor, so nothing depends on TTL alone. Idempotent, so
// several processes may run it at once. It runs as the recurring Agenda job `tokens.cleanup` of the
// scheduler module (core/scheduler).
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';
import type { TokenService } from '../tokens/service.js';
import type { Clock } from '../util/time.js';

export const INACTIVITY_MS = 7 * 24 * 3600 * 1000;
/** A set-response wait is swept this long after its deadline (its capture has answered by then). */
export const STALE_LISTENER_MS = 60_000;
const BATCH = 500;

export async function cleanupTokens(store: Store, tokens: TokenService, clock: Pick<Clock, 'now'>, logger?: Logger): Promise<{ expired: number; inactive: number }> {
  const now = clock.now();
  const counts = { expired: 0, inactive: 0 };
  for (const [kind, find] of [
    ['expired', () => store.tokens.expired(now, BATCH)],
    ['inactive', () => store.tokens.inactive(now - INACTIVITY_MS, BATCH)],
  ] as const) {
    for (;;) {
      const ids = await find();
      if (!ids.length) break;
      for (const id of ids) {
        const t = await store.tokens.get(id);
        if (t) await tokens.delete(t);
        counts[kind]++;
      }
      if (ids.length < BATCH) break;
    }
  }
  if (counts.expired || counts.inactive) logger?.info('tokens cleaned up', counts);
  return counts;
}

/** Deletes rate-limit windows and set-response waits past their time. */
export async function sweepExpired(store: Store, clock: Pick<Clock, 'now'>): Promise<{ counters: number; listeners: number }> {
  const now = clock.now();
  return {
    counters: await store.counters.sweep(now),
    listeners: await store.listeners.sweep(now - STALE_LISTENER_MS),
  };
}
