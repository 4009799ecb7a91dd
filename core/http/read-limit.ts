// A per-minute limit on an expensive read (an export, schedule logs), counted in the store so that
// every instance agrees. A read keeps working while the disk is full: a count that cannot be written
// for lack of space lets the read through rather than refusing it with 507.
import { InsufficientStorage, TooManyRequests } from '../errors.js';
import type { Store } from '../store/types.js';

const MINUTE = 60_000;

/** Counts one read under `key` in the current minute; 429 with Retry-After past `perMinute`. */
export async function limitReadsPerMinute(store: Pick<Store, 'counters'>, key: string, now: number, perMinute: number, message: string): Promise<void> {
  const window = now - (now % MINUTE);
  let count: number;
  try {
    count = await store.counters.hit(key, window, 2 * MINUTE);
  } catch (err) {
    if (err instanceof InsufficientStorage) return;
    throw err;
  }
  if (count > perMinute) throw new TooManyRequests(message, (window + MINUTE - now) / 1000);
}
