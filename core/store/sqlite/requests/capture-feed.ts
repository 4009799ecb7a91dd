// The captures committed after a point, in commit order, for the cross-process feed
// (core/realtime/feed.ts): other processes' captures reach this one's watchers by polling them.
import type { Database } from 'better-sqlite3';

/** A committed capture as the feed sees it: where it is in commit order, and whose. */
export interface FeedCapture {
  seq: number;
  uuid: string;
  token_id: string;
}

export interface CaptureFeed {
  /** The newest capture's position in commit order (0: none yet), committed or rolled back since. */
  newest(): number;
  /** The captures committed after `seq`, oldest first, at most `limit`. */
  after(seq: number, limit: number): FeedCapture[];
}

/**
 * By `seq`: AUTOINCREMENT, and SQLite has one writer at a time, so seq order is commit order and a
 * poll from the last seq seen skips nothing committed. Pending captures (not caught up) are
 * included: the feed reads them by UUID (SEQ_OF_UUID looks among them too).
 */
export function captureFeed(db: Database): CaptureFeed {
  const maxSeq = db.prepare<[], number>("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'requests'), 0)").pluck();
  const newer = db.prepare<[number, number], FeedCapture>('SELECT seq, uuid, token_id FROM requests WHERE seq > ? ORDER BY seq LIMIT ?');
  return {
    newest: () => maxSeq.get() ?? 0,
    after: (seq, limit) => newer.all(seq, limit),
  };
}
