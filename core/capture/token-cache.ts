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

interface Entry {
  ref: string;
  token: TokenRecord;
  until: number;
}

/**
 * Slots of the table in front of the map (a power of two). A capture's reference is a new string
 * each time, which the map hashes whole (measured: about a third of a lookup); a slot is found from
 * its last four characters and confirmed by comparing the reference.
 */
const SLOTS = 1024;

/** A slot by the reference's last characters (a UUID's are random); two references in one slot only miss it. */
function slotOf(ref: string): number {
  const n = ref.length;
  if (n < 4) return n;
  return (((ref.charCodeAt(n - 1) * 31 + ref.charCodeAt(n - 2)) * 31 + ref.charCodeAt(n - 3)) * 31 + ref.charCodeAt(n - 4)) & (SLOTS - 1);
}

export function createTokenCache(store: Store, clock: Clock, ttlMs = 1000): TokenCache {
  const entries = new Map<string, Entry>();
  /** The entry last found or stored in each slot: only ever one the map holds too. */
  const slots: (Entry | undefined)[] = new Array(SLOTS).fill(undefined);
  const fresh = (ref: string, now: number): Entry | undefined => {
    const i = slotOf(ref);
    const slot = slots[i];
    if (slot && slot.ref === ref && slot.until > now) return slot;
    const hit = entries.get(ref);
    if (!hit || hit.until <= now) return undefined;
    slots[i] = hit;
    return hit;
  };
  return {
    peek(ref) {
      return fresh(ref, clock.now())?.token;
    },
    async resolve(ref) {
      const now = clock.now();
      const hit = fresh(ref, now);
      if (hit) return hit.token;
      const token = await store.tokens.resolve(ref);
      if (token) {
        if (entries.size >= MAX_ENTRIES) (entries.clear(), slots.fill(undefined));
        const entry = { ref, token, until: now + ttlMs };
        entries.set(ref, entry);
        slots[slotOf(ref)] = entry;
      } else {
        entries.delete(ref);
        const i = slotOf(ref);
        if (slots[i]?.ref === ref) slots[i] = undefined;
      }
      return token;
    },
    forget(token) {
      // An entry may be keyed by the UUID or by an alias, old or new.
      for (const [key, e] of entries) if (e.token.uuid === token.uuid || key === token.alias) entries.delete(key);
      for (let i = 0; i < SLOTS; i++) if (slots[i] && entries.get(slots[i]!.ref) !== slots[i]) slots[i] = undefined;
    },
  };
}
