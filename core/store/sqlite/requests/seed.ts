// Requests stored as plain rows behind the capture writer's back, for measurement scripts that
// seed many at once: the next catch-up (at the latest, the one a store runs when it opens) gives
// them their keys, UUID entries, counters and trimming, as it does for captures. The rows come
// from the one column table (columns.ts), so a new column needs nothing here or in the scripts.
import type { Database } from 'better-sqlite3';
import type { RequestRecord } from '../../types.js';
import { insertSql, PLAIN_COLUMNS, toRow } from './columns.js';

/** Stores a record's row on `db`; call it inside a transaction (one per few thousand rows) for speed. */
export function requestSeeder(db: Database): (r: RequestRecord) => void {
  const plain = db.prepare(insertSql(true));
  const full = db.prepare(insertSql(false));
  return (r) => {
    const row = toRow(r);
    (row.length === PLAIN_COLUMNS ? plain : full).run(row);
  };
}
