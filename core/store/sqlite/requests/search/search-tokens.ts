// Which tokens have a search index (migration 23): search_keys and request_text hold the requests
// of the tokens listed in search_tokens, those whose request_limit is above SEARCH_INDEX_ABOVE.
// Indexing every capture costs more than the rest of a capture; a token of up to 10,000 requests
// (the seed's maximum) is searched in a few ms by reading its rows, on a reader thread.
import type { Database, Statement } from 'better-sqlite3';

/** Tokens allowed more requests than this get a search index (the SEARCH_INDEX_ABOVE setting). */
/**
 * A search_tokens fill cursor above every key (sortings are microseconds since 1970, about 1.8e15):
 * the fill starts at the newest request.
 */
export const FILL_FROM_TOP = Number.MAX_SAFE_INTEGER;

export const DEFAULT_SEARCH_INDEX_ABOVE = 10_000;

/**
 * Records the setting for the triggers that list tokens when they are created or raised above it,
 * and lists the tokens above it now (filled by the catch-up). A token once listed stays listed.
 * Returns how many were listed now.
 */
export function setSearchIndexAbove(db: Database, above: number): number {
  return db
    .transaction(() => {
      db.prepare('UPDATE search_settings SET above = ?').run(above);
      return db.prepare('INSERT OR IGNORE INTO search_tokens (token_id, fill_sorting, fill_seq) SELECT uuid, ?, ? FROM tokens WHERE request_limit > ?').run(FILL_FROM_TOP, FILL_FROM_TOP, above).changes;
    })
    .immediate();
}

/** Whether the token's searches can use the search index: listed, and filled. */
export function searchIndexed(db: Database, tokenId: string): boolean {
  let stmt = indexedStatements.get(db);
  if (!stmt) indexedStatements.set(db, (stmt = db.prepare('SELECT 1 FROM search_tokens WHERE token_id = ? AND fill_sorting IS NULL')));
  return stmt.get(tokenId) !== undefined;
}
const indexedStatements = new WeakMap<Database, Statement>();
