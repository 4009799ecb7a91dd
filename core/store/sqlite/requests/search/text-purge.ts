// Purging the full-text entries of deleted search-indexed requests (request_text_stale, migration
// 24), a time budget per catch-up. Runs inside the writer's catch-up (writer/batch-writer.ts).
import type { Database } from 'better-sqlite3';
import { purgeStaleText } from './fts-writes.js';

/** Listed full-text entries of deleted requests a catch-up deletes at most (within TEXT_PURGE_MS). */
export const TEXT_PURGE_ROWS = 1_000;
/**
 * How long a catch-up may spend deleting the entries of deleted requests: it holds the event loop.
 * With FTS5's merges on, an entry cost about 0.45 ms and a catch-up after a 100,000-row delete spent
 * 0.5 s on it; with them off (fts-writes.ts), about 10 µs.
 */
export const TEXT_PURGE_MS = 4;

export interface TextPurge {
  /** Deletes listed entries for purgeMs at most; returns how many. */
  purge(): number;
  /** Whether the last purge left entries listed (more is due soon). */
  readonly purging: boolean;
  /** Entries were listed (a trim deleted search-indexed rows): the next catch-up looks. */
  due(): void;
}

export function textPurge(db: Database, purgeMs = TEXT_PURGE_MS): TextPurge {
  // A deleted search-indexed request leaves its request_text entry, listed in request_text_stale
  // (migration 24); bulk and token deletions purge as many as they delete (chunks.ts), trimming
  // leaves them here. Each catch-up deletes listed entries for purgeMs at most; most of the time
  // none is listed, and looking costs one index read.
  /** Whether entries were left listed by the last purge (unknown at first: yes). */
  let purging = true;
  function purge(): number {
    const { purged, more } = purgeStaleText(db, TEXT_PURGE_ROWS, purgeMs);
    purging = more;
    return purged;
  }
  return {
    purge,
    get purging() {
      return purging;
    },
    due() {
      purging = true;
    },
  };
}
