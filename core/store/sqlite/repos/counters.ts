import type { Database } from 'better-sqlite3';
import type { Admission, CounterRepo } from '../../types.js';

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
  // Sliding-window starts: a row per key and millisecond of a start (window_start), counting the
  // starts of that millisecond. Rows that left the window are dropped as the key is next admitted.
  const dropStarts = db.prepare<[string, number]>('DELETE FROM rate_counters WHERE key = ? AND window_start <= ?');
  const starts = db.prepare<[string], { window_start: number; count: number }>('SELECT window_start, count FROM rate_counters WHERE key = ? ORDER BY window_start');
  const admit = db.transaction((key: string, at: number, limit: number, periodMs: number): Admission => {
    dropStarts.run(key, at - periodMs);
    const rows = starts.all(key);
    let inWindow = rows.reduce((sum, r) => sum + r.count, 0);
    if (inWindow < limit) {
      hit.get(key, at, at + periodMs);
      return { admitted: true };
    }
    // The window has room again once enough of its oldest starts have left it.
    for (const r of rows) {
      inWindow -= r.count;
      if (inWindow < limit) return { admitted: false, retryAt: r.window_start + periodMs };
    }
    return { admitted: false, retryAt: at + periodMs };
  });
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
    async admit(key, at, limit, periodMs) {
      // IMMEDIATE: the count and the insert happen under the write lock, so processes sharing the
      // file cannot both take the last place.
      return admit.immediate(key, at, limit, periodMs);
    },
    async peek(key, windowStart) {
      return peek.get(key, windowStart)?.count ?? 0;
    },
    async sweep(at) {
      return sweep.run(at).changes;
    },
  };
}
