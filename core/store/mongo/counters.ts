// Rate-limit counters shared by every process on the database: epoch-aligned windows (hit),
// windows opened by a key's first hit (hitWindow, the Rate Limit action's) and sliding windows of
// starts (admit, the Queue Profiles').
// Documents expire through the TTL index on `expires_at` (the TTL monitor runs about once a minute)
// and through `sweep` (the clean-up job), so servers without a TTL monitor do not keep them forever.
import type { Admission, CounterRepo, CounterWindow, Millis } from '../types.js';
import { isDuplicateKey, type Cols } from './docs.js';

/** How often admit decides again when other processes keep changing the window first. */
const MAX_ADMIT_ATTEMPTS = 50;

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
        const doc = await this.c.counters.findOneAndUpdate({ _id }, { $inc: { count: 1 }, $setOnInsert: { expires_at } }, { upsert: true, returnDocument: 'after' });
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

  async admit(key: string, now: Millis, limit: number, periodMs: number): Promise<Admission> {
    // One document per key (`key@starts`) listing the times of the starts in the window, and
    // `count`, the starts ever admitted, as its version: a start is written only over the version
    // it was decided on (compare-and-set), so two processes cannot both take the last place. Plain
    // $set and equality filters, which every server (and the emulator) applies atomically.
    const _id = `${key}@starts`;
    for (let attempt = 0; attempt < MAX_ADMIT_ATTEMPTS; attempt++) {
      const doc = await this.c.counters.findOne({ _id });
      const inWindow = (doc?.starts ?? []).filter((t) => t > now - periodMs).sort((a, b) => a - b);
      // Room again once the oldest starts beyond `limit - 1` have left the window.
      if (inWindow.length >= limit) return { admitted: false, retryAt: inWindow[inWindow.length - limit]! + periodMs };
      const starts = [...inWindow, now];
      // The document lives as long as its latest start counts.
      const next = { starts, count: (doc?.count ?? 0) + 1, expires_at: new Date(Math.max(...starts) + periodMs) };
      if (!doc) {
        try {
          await this.c.counters.insertOne({ _id, ...next });
          return { admitted: true };
        } catch (err) {
          if (isDuplicateKey(err)) continue; // another process wrote the first start
          throw err;
        }
      }
      if ((await this.c.counters.updateOne({ _id, count: doc.count }, { $set: next })).matchedCount === 1) return { admitted: true };
      // Another process admitted (or the document expired) since it was read: decide again.
    }
    throw new Error(`rate counter ${key}: ${MAX_ADMIT_ATTEMPTS} concurrent updates in a row`);
  }

  async peek(key: string, windowStart: Millis): Promise<number> {
    const doc = await this.c.counters.findOne({ _id: counterId(key, windowStart) });
    return doc?.count ?? 0;
  }

  async sweep(now: Millis): Promise<number> {
    return (await this.c.counters.deleteMany({ expires_at: { $lt: new Date(now) } })).deletedCount;
  }
}
