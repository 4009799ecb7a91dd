import type { Database } from 'better-sqlite3';
import type { CounterRepo } from '../../types.js';

export function sqliteCounters(db: Database, now: () => number = Date.now): CounterRepo {
  const hit = db.prepare<[string, number, number], { count: number }>(
    `INSERT INTO rate_counters (key, window_start, count, expires_at) VALUES (?, ?, 1, ?)
     ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING count`,
  );
  // Opened-at-first-hit windows: one row per key at window_start 0 (a key these never share with
  // hit's epoch windows), its window ending at expires_at. Every SET reads the row as it was.
  const hitWindow = db.prepare<{ key: string; now: number; until: number }, { count: number; expires_at: number }>(
    `INSERT INTO rate_counters (key, window_start, count, expires_at) VALUES (@key, 0, 1, @until)
     ON CONFLICT (key, window_start) DO UPDATE SET
       count = CASE WHEN expires_at > @now THEN count + 1 ELSE 1 END,
       expires_at = CASE WHEN expires_at > @now THEN expires_at ELSE @until END
     RETURNING count, expires_at`,
  );
  const peek = db.prepare<[string, number], { count: number }>('SELECT count FROM rate_counters WHERE key = ? AND window_start = ?');
  const sweep = db.prepare('DELETE FROM rate_counters WHERE expires_at < ?');
  let hits = 0;
  return {
    async hit(key, windowStart, ttlMs) {
      // Expired windows are swept now and then rather than on every hit.
      if (++hits % 1000 === 0) sweep.run(now());
      return hit.get(key, windowStart, windowStart + ttlMs)!.count;
    },
    async hitWindow(key, at, periodMs) {
      const row = hitWindow.get({ key, now: at, until: at + periodMs })!;
      return { count: row.count, openedAt: row.expires_at - periodMs };
    },
    async peek(key, windowStart) {
      return peek.get(key, windowStart)?.count ?? 0;
    },
    async sweep(at) {
      return sweep.run(at).changes;
    },
  };
}
