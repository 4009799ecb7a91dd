// Rate-limit counters shared by every process on the database: epoch-aligned windows (hit) and
// windows opened by a key's first hit (hitWindow, the Rate Limit action's).
// Documents expire through the TTL index on `expires_at` (the TTL monitor runs about once a minute)
// and through `sweep` (the clean-up job), so servers without a TTL monitor do not keep them forever.
import type { CounterRepo, CounterWindow, Millis } from '../types.js';
import { isDuplicateKey, type Cols } from './docs.js';

function counterId(key: string, windowStart: Millis): string {
  return `${key}@${windowStart}`;
}

export class MongoCounterRepo implements CounterRepo {
  constructor(private readonly c: Cols) {}

  async hit(key: string, windowStart: Millis, ttlMs: number): Promise<number> {
    const _id = counterId(key, windowStart);
    // Kept at least ttlMs from now, so a window is never reaped while it can still be counted.
    const expires_at = new Date(Math.max(windowStart, Date.now()) + ttlMs);
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.c.counters.findOneAndUpdate(
          { _id },
          { $inc: { count: 1 }, $setOnInsert: { expires_at } },
          { upsert: true, returnDocument: 'after' },
        );
        return doc?.count ?? 1;
      } catch (err) {
        // Two concurrent upserts of a new window: one insert wins, the other retries as an update.
        if (attempt < 2 && isDuplicateKey(err)) continue;
        throw err;
      }
    }
  }

  async hitWindow(key: string, now: Millis, periodMs: number): Promise<CounterWindow> {
    // One document per key (`key@open`), its window ending at expires_at. An open window counts
    // the hit; else the hit reopens it, and an insert racing another's (duplicate key) counts again.
    const _id = `${key}@open`;
    for (let attempt = 0; ; attempt++) {
      const open = await this.c.counters.findOneAndUpdate({ _id, expires_at: { $gt: new Date(now) } }, { $inc: { count: 1 } }, { returnDocument: 'after' });
      if (open) return { count: open.count, openedAt: open.expires_at.getTime() - periodMs };
      try {
        const expires_at = new Date(now + periodMs);
        await this.c.counters.findOneAndUpdate({ _id, expires_at: { $lte: new Date(now) } }, { $set: { count: 1, expires_at } }, { upsert: true });
        return { count: 1, openedAt: now };
      } catch (err) {
        if (attempt < 2 && isDuplicateKey(err)) continue;
        throw err;
      }
    }
  }

  async peek(key: string, windowStart: Millis): Promise<number> {
    const doc = await this.c.counters.findOne({ _id: counterId(key, windowStart) });
    return doc?.count ?? 0;
  }

  async sweep(now: Millis): Promise<number> {
    return (await this.c.counters.deleteMany({ expires_at: { $lt: new Date(now) } })).deletedCount;
  }
}
