// Capture URLs resolve their token on every request; this keeps recently seen tokens for a moment.
// Changes made through this process drop the entry at once; another process sharing the store is
// seen within `ttlMs` (a deleted token's late captures then fail their insert and answer 404).
import type { Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';

export interface TokenCache {
  resolve(idOrAlias: string): Promise<TokenRecord | null>;
  /** The cached token when it is fresh, without a turn of the event loop; undefined otherwise. */
  peek(idOrAlias: string): TokenRecord | undefined;
  forget(token: Pick<TokenRecord, 'uuid' | 'alias'>): void;
}

const MAX_ENTRIES = 10_000;

export function createTokenCache(store: Store, clock: Clock, ttlMs = 1000): TokenCache {
  const entries = new Map<string, { token: TokenRecord; until: number }>();
  return {
    peek(ref) {
      const hit = entries.get(ref);
      return hit && hit.until > clock.now() ? hit.token : undefined;
    },
    async resolve(ref) {
      const hit = entries.get(ref);
      const now = clock.now();
      if (hit && hit.until > now) return hit.token;
      const token = await store.tokens.resolve(ref);
      if (token) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(ref, { token, until: now + ttlMs });
      } else {
        entries.delete(ref);
      }
      return token;
    },
    forget(token) {
      // An entry may be keyed by the UUID or by an alias, old or new.
      for (const [key, e] of entries) if (e.token.uuid === token.uuid || key === token.alias) entries.delete(key);
    },
  };
}
