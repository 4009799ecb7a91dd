// Token retention (seed: States and transitions): a token whose expires_at has passed is deleted
// with its data; a non-premium token (or one created with the legacy `expiry: true`) with no
// requests for a week is deleted too. Idempotent, so several processes may run it at once. It runs
// as the recurring Agenda job `tokens.cleanup` of the scheduler module (core/scheduler).
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';
import type { TokenService } from '../tokens/service.js';
import type { Clock } from '../util/time.js';

export const INACTIVITY_MS = 7 * 24 * 3600 * 1000;
const BATCH = 500;

export async function cleanupTokens(store: Store, tokens: TokenService, clock: Clock, logger?: Logger): Promise<{ expired: number; inactive: number }> {
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
