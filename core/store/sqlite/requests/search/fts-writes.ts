// Deleting request_text (FTS5) entries without FTS5's automatic merges, and the entries of deleted
// requests (listed in request_text_stale, migration 24). After every write
// transaction FTS5 merges segments in proportion to what the transaction wrote (automerge, 16:
// FTS_AUTOMERGE), and for deletions that is nearly all the cost: 0.27 ms an entry and ~150 KB of WAL per
// ten, against about 10 µs with merges off (200,000 indexed requests, measured). Deletions switch
// automerge off for their own transaction and back on before it commits, so captures' inserts
// still merge as before and the segments stay few. It imports nothing, so the writer thread loads
// it without the rest of the store.
import type { Database, Statement } from 'better-sqlite3';

/**
 * Whether a request's body (`body`, or `r.body` with the alias) is plain text for the trigram index
 * (search_rows.plain, migration 27): as many characters as bytes, so ASCII without NUL. There the
 * index's phrase match and LIKE agree: both fold ASCII case alone, and a lone byte of 0x80 or more
 * (no continuation follows it, or the count would differ) reads as U+FFFD in both.
 */
export const plainBody = (body: string): string => `(length(CAST(${body} AS TEXT)) = octet_length(${body}))`;

/**
 * The text request_text indexes (column hdr) for a request's headers (`headers`: their JSON text,
 * `{"name":["value"],...}`): that text with the JSON syntax between a name and its value and between
 * a value and the next name taken out, `"name"value"name"value`, a fifth fewer trigrams for usual
 * headers. What a search looks for in it (compile-sql.ts indexedRuns) is there as it was in the
 * JSON: each name of letters, digits, `_` and `-` quoted, and each run of 3 or more characters of a
 * value without a quote, backslash or control character. Each piece replaced has an unescaped quote
 * at both ends, so it lies between a name and a value or a value and a name, or starts at an escaped
 * quote ending a value (then only the 1 or 2 characters after that quote go, shorter than a run).
 * Text in another layout stays as it is, and so do the `","` between a repeated header's values:
 * a third replace() would cost every capture for the few such headers. Entries indexed from the
 * JSON itself still match every search.
 */
export const headerText = (headers: string): string => `rtrim(ltrim(replace(replace(${headers}, '":["', '"'), '"],"', '"'), '{'), ']}')`;

/** The table's automerge (set by a migration; FTS5's default is 4), which it keeps outside deletions. */
export const FTS_AUTOMERGE = 16;

const statements = new WeakMap<Database, { off: Statement; on: Statement }>();

/**
 * Runs `fn` (deletions from request_text) with automerge off. Call it inside a write transaction:
 * the setting is written to request_text_config, and set back before `fn`'s transaction commits
 * (also when `fn` throws), so no other transaction sees it off.
 */
export function withoutAutomerge<T>(db: Database, fn: () => T): T {
  let s = statements.get(db);
  if (!s) {
    s = {
      off: db.prepare("INSERT INTO request_text (request_text, rank) VALUES ('automerge', 0)"),
      on: db.prepare(`INSERT INTO request_text (request_text, rank) VALUES ('automerge', ${FTS_AUTOMERGE})`),
    };
    statements.set(db, s);
  }
  s.off.run();
  try {
    return fn();
  } finally {
    s.on.run();
  }
}

const purges = new WeakMap<Database, { listed: Statement<[number], number>; entry: Statement<[number]>; unlist: Statement<[number]> }>();

/**
 * Deletes the full-text entries of deleted requests listed in request_text_stale, lowest seq first:
 * at most `max`, and for `budgetMs` at most (one at least, so that a purge always gets on). Call it
 * inside a write transaction. Returns how many went and whether any listed were left.
 */
export function purgeStaleText(db: Database, max: number, budgetMs = Infinity): { purged: number; more: boolean } {
  let s = purges.get(db);
  if (!s) {
    s = {
      listed: db.prepare<[number], number>('SELECT seq FROM request_text_stale ORDER BY seq LIMIT ?').pluck(),
      entry: db.prepare<[number]>('DELETE FROM request_text WHERE rowid = ?'),
      unlist: db.prepare<[number]>('DELETE FROM request_text_stale WHERE seq = ?'),
    };
    purges.set(db, s);
  }
  const listed = s.listed.all(max + 1);
  if (!listed.length) return { purged: 0, more: false };
  const t0 = performance.now();
  let purged = 0;
  withoutAutomerge(db, () => {
    for (const seq of listed.slice(0, max)) {
      if (purged > 0 && performance.now() - t0 > budgetMs) break;
      s.entry.run(seq);
      s.unlist.run(seq);
      purged++;
    }
  });
  return { purged, more: purged < listed.length };
}
