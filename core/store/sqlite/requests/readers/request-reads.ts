// A token's request list as plain work on a connection: planned on the main thread (the search is
// compiled there, so its errors keep their class), run on whichever connection the caller has (a
// reader thread's, reader-pool.ts, or the main one for ':memory:'). Plans and results are plain
// data, so they cross a thread boundary by structured clone.
import type { Database } from 'better-sqlite3';
import type { QueryNode } from '../../../query/index.js';
import { compileSql, exactMatch, matchText, textDriver, type IndexedText } from '../search/compile-sql.js';
import { COUNT_BOUND } from '../../../query/limits.js';
import { toRecord } from '../columns.js';
import type { RequestCursor, RequestFilter, RequestListOptions, RequestRecord, RequestWalkOptions, RequestWalkPage } from '../../../types.js';
import { searchIndexed } from '../search/search-tokens.js';
import { tokenNumberOf } from '../token-number.js';

type Row = Record<string, unknown>;

/**
 * A token's requests, through its index (request_keys k: token_number, sorting, seq), in index
 * order. Reads call writer.sync() first, so that every acknowledged capture has its key.
 * CROSS JOIN keeps request_keys the outer loop (SQLite's planner takes it as an order).
 */
export const KEYED = 'request_keys k CROSS JOIN requests r ON r.seq = k.seq';

/**
 * The seq of the request with UUID @u: from the UUID index (request_ids) unless trimmed (its row
 * waits for the sweep: request_trimmed, migration 26), or among the pending rows the catch-up has
 * not indexed yet (past the watermark: at most one catch-up's worth, scanned).
 */
export const SEQ_OF_UUID = `SELECT seq FROM request_ids WHERE uuid = @u AND NOT EXISTS (SELECT 1 FROM request_trimmed d WHERE d.seq = request_ids.seq)
  UNION ALL SELECT seq FROM requests WHERE seq > (SELECT seq FROM request_watermark) AND uuid = @u`;

/**
 * The index a filter walks: request_keys (every request: token, sorting, seq), or search_keys, the
 * search index of the tokens that have one (search-tokens.ts), which also carries method, type,
 * ip, created_at, size and note.
 */
export { toRecord };

export type KeyTable = 'request_keys' | 'search_keys';

/**
 * A token's requests under a filter, as SQL over the token index `k` (`keys`): joined to
 * `requests r` only when `needsRow` (the filter reads a column the index lacks).
 */
export interface FilterPlan {
  tokenId: string;
  keys: KeyTable;
  sql: string;
  params: unknown[];
  filtered: boolean;
  needsRow: boolean;
}

/**
 * A filter over search_keys (with its full-text candidates), or with `indexed` false over
 * request_keys, reading each of the token's rows: the same requests either way.
 */
export function planFilter(tokenId: string, f: RequestFilter, driven?: QueryNode, indexed = true): FilterPlan {
  // Both key tables by the token's number (token-number.ts).
  const parts = [`k.token_number = ${tokenNumberOf('?')}`];
  const params: unknown[] = [tokenId];
  let needsRow = false;
  const created = indexed ? 'k.created_at' : 'r.created_at';
  if (f.dateFrom != null) {
    parts.push(`${created} >= ?`);
    params.push(f.dateFrom);
  }
  if (f.dateTo != null) {
    parts.push(`${created} <= ?`);
    params.push(f.dateTo);
  }
  if (f.query) {
    const c = compileSql(f.query, f.now ?? Date.now(), { keyed: indexed, driven: indexed ? driven : undefined, row: 'r' });
    parts.push(`(${c.sql})`);
    params.push(...c.params);
    needsRow = c.needsRow;
  }
  const filtered = parts.length > 1;
  return { tokenId, keys: indexed ? 'search_keys' : 'request_keys', sql: parts.join(' AND '), params, filtered, needsRow: needsRow || (!indexed && filtered) };
}

/** A filter planned both ways; which one runs depends on the token's index when it runs (pickFilter). */
export interface FilterPlans {
  indexed: FilterPlan;
  plain: FilterPlan;
  /**
   * When an indexed term drives the search (textDriver): its trigram MATCH and the filter over the
   * candidates' rows, for a walk in the index's rowid order (a deletion's: chunks.ts, matchReader);
   * `keyed`, the filter over the token index with that term checked on the row only, for a walk in
   * the token's order whose steps collect the term's candidates themselves (readWalk).
   */
  driven: { match: string; rows: RowFilterPlan; keyed: FilterPlan } | null;
}

export function planFilters(tokenId: string, f: RequestFilter): FilterPlans {
  const now = f.now ?? Date.now();
  const driver = f.query ? textDriver(f.query, now) : null;
  return {
    indexed: planFilter(tokenId, { ...f, now }),
    plain: planFilter(tokenId, { ...f, now }, undefined, false),
    driven: driver ? { match: driver.match, rows: planRowFilter(tokenId, { ...f, now }), keyed: planFilter(tokenId, { ...f, now }, driver.node) } : null,
  };
}

/** The plan for the token as `db` sees it now: through its search index once it has a filled one. */
export const pickFilter = (db: Database, plans: FilterPlans): FilterPlan => (searchIndexed(db, plans.indexed.tokenId) ? plans.indexed : plans.plain);

/** The FROM clause a filter needs: its index alone, or joined to the rows. */
export const fromFor = (w: { keys: KeyTable; needsRow: boolean }): string => (w.needsRow ? `${w.keys} k CROSS JOIN requests r ON r.seq = k.seq` : `${w.keys} k`);

/**
 * Starting from the trigram index (a search with a term it holds, textDriver()): its candidates and
 * their rows, filtered by the row-only plan (ListPlan.rows). Costs what the candidates number, not
 * what the token holds. No token index join: every indexed row has its keys (the catch-up adds
 * both), a deleted one has no row, and the columns keyed are never updated; skipping that second
 * random read per candidate halves a sparse term's count at a million requests.
 */
export const DRIVEN = 'request_text CROSS JOIN requests r ON r.seq = request_text.rowid';

/** A token's requests under a filter, as SQL over `requests r` alone (no token index). */
export interface RowFilterPlan {
  sql: string;
  params: unknown[];
}

export function planRowFilter(tokenId: string, f: RequestFilter): RowFilterPlan {
  // A lowered token's trimmed requests keep their full-text entries until the purge and their rows
  // until the sweep (writer/trims.ts); listed in request_trimmed, they are out of every read.
  const parts = ['r.token_id = ?', 'NOT EXISTS (SELECT 1 FROM request_trimmed d WHERE d.seq = r.seq)'];
  const params: unknown[] = [tokenId];
  if (f.dateFrom != null) (parts.push('r.created_at >= ?'), params.push(f.dateFrom));
  if (f.dateTo != null) (parts.push('r.created_at <= ?'), params.push(f.dateTo));
  if (f.query) {
    // Unkeyed: plain requests columns (request_text's own columns, txt/hdr/qs, share no name).
    const c = compileSql(f.query, f.now ?? Date.now());
    parts.push(`(${c.sql})`);
    params.push(...c.params);
  }
  return { sql: parts.join(' AND '), params };
}

/**
 * Starting from the trigram index like DRIVEN, but over search_rows (migration 27: the token's
 * number and whether the body is plain, ~400 a page) instead of the candidates' requests rows
 * (~8 a page): counting a term's candidates reads a page per few hundred of them, not one each.
 * With `fields`, search_fields (method, query string) too.
 */
export const denseFrom = (fields: boolean): string => `request_text CROSS JOIN search_rows s ON s.seq = request_text.rowid${fields ? ' CROSS JOIN search_fields sf ON sf.seq = s.seq' : ''}`;

/** A token's requests under a filter, as SQL over search_rows `s` (denseFrom), for a statement driven by the filter's driver. */
export interface DenseFilterPlan extends RowFilterPlan {
  readsFields: boolean;
  /** The driver's full MATCH decides for plain bodies (exactMatch): it must not be narrowed. */
  exact: boolean;
}

/**
 * The dense plan, or null where it would read the candidates' rows anyway (a date window, or a term
 * on a column search_fields lacks: a content term too, unless it is the driver and exactMatch):
 * then DRIVEN reads them once.
 */
export function planDenseFilter(tokenId: string, f: RequestFilter, driven: QueryNode): DenseFilterPlan | null {
  if (f.dateFrom != null || f.dateTo != null || !f.query) return null;
  const now = f.now ?? Date.now();
  const c = compileSql(f.query, now, { dense: true, driven });
  if (c.readsRows) return null;
  return {
    sql: `s.token_number = (SELECT token_number FROM search_tokens WHERE token_id = ?) AND (${c.sql})`,
    params: [tokenId, ...c.params],
    readsFields: c.readsFields,
    exact: exactMatch(driven, now),
  };
}

/**
 * Below this many matches a page is sorted from the trigram index's candidates; above, walking the
 * token index in order finds a page's matches sooner.
 */
const SORT_CANDIDATES_BELOW = 2_000;

export interface ListPlan {
  /** Through the search index (the token has a filled one), with `match`, `rows` and `text`. */
  where: FilterPlan;
  /** Otherwise: reading the token's rows. */
  plain: FilterPlan;
  /** The trigram MATCH expression when an indexed term drives the search (textDriver). */
  match: string | null;
  /** With `match`: the filter over the candidates' rows. */
  rows: RowFilterPlan | null;
  /** With `match`: the filter over the candidates' search_rows, which the count reads. */
  dense: DenseFilterPlan | null;
  /** With `match`, when one term's: its column and runs, which readList may narrow (narrowMatch). */
  text: IndexedText | null;
  dir: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

export function planList(tokenId: string, opts: RequestListOptions): ListPlan {
  const now = opts.now ?? Date.now();
  const driver = opts.query ? textDriver(opts.query, now) : null;
  return {
    where: planFilter(tokenId, { ...opts, now }, driver?.node),
    plain: planFilter(tokenId, { ...opts, now }, undefined, false),
    match: driver?.match ?? null,
    rows: driver ? planRowFilter(tokenId, { ...opts, now }) : null,
    dense: driver ? planDenseFilter(tokenId, { ...opts, now }, driver.node) : null,
    text: driver?.text ?? null,
    dir: opts.sorting === 'newest' ? 'DESC' : 'ASC',
    limit: opts.perPage,
    offset: (opts.page - 1) * opts.perPage,
  };
}

export interface ListResult {
  items: RequestRecord[];
  total: number;
  totalCapped?: true;
}

/** Index entries (the newest) that narrowMatch samples, and the hits it counts at most in each. */
const NARROW_SAMPLE = 3_000;
const NARROW_HITS = 200;
/** Runs at most this long are kept whole (a 4-character piece is 2 trigrams; 5 would be 3). */
const NARROW_LONGER_THAN = 4;
/** Pieces sampled per run at most (evenly spread over a long run): each costs a small index read. */
const NARROW_PIECES = 6;

/**
 * The driving term's MATCH text with each long run cut to the rarest of its sampled 4-character pieces, as seen
 * in the newest index entries. A phrase of n characters makes the index intersect n-2 trigram
 * lists, the common ones (`ent`, `ail`) nearly as long as the index: "payment failed" cost 40-90 ms
 * at a million requests, its piece "nt f" 2-7 ms with the same candidates. Any piece of a run is in
 * every text the run is in, so the candidates stay a superset; the row's exact check decides.
 */
function narrowMatch(db: Database, text: IndexedText): string {
  if (!text.runs.some((r) => [...r].length > NARROW_LONGER_THAN)) return matchText(text);
  const newest = (db.prepare('SELECT rowid FROM request_text ORDER BY rowid DESC LIMIT 1').pluck().get() as number | undefined) ?? 0;
  const hits = db.prepare(`SELECT count(*) FROM (SELECT 1 FROM request_text WHERE request_text MATCH ? AND rowid > ? LIMIT ${NARROW_HITS})`).pluck();
  const runs = text.runs.map((run) => {
    const chars = [...run];
    if (chars.length <= NARROW_LONGER_THAN) return run;
    let best = run;
    let fewest = Infinity;
    const starts = chars.length - 3;
    const step = Math.max(1, starts / NARROW_PIECES);
    for (let at = 0; at < starts; at += step) {
      const i = Math.floor(at);
      const piece = chars.slice(i, i + 4).join('');
      // A BigInt binds as an integer: FTS5 ignores a rowid bound that arrives as a float (JS numbers
      // bind as REAL), and the sample would read the whole list.
      const n = hits.get(matchText({ column: text.column, runs: [piece] }), BigInt(newest - NARROW_SAMPLE)) as number;
      if (n < fewest) ((fewest = n), (best = piece));
    }
    return best;
  });
  return matchText({ column: text.column, runs });
}

/**
 * `read` in one read transaction, for a list's or a walk step's several statements: they see one
 * snapshot, so a list's total and its page agree while captures are committed between them, and
 * the connection keeps its page cache from one to the next (a read transaction that finds the WAL
 * changed starts with an empty one). Searching a rare term beside 200 commits a second at a
 * million requests: 17-18 -> 15 ms.
 */
function inOneSnapshot<T>(db: Database, read: () => T): T {
  return db.transaction(read)();
}

/** Runs a planned list on `db`: the total (bounded when filtered) and the page, from one snapshot. */
export function readList(db: Database, plan: ListPlan): ListResult {
  return inOneSnapshot(db, () => listIn(db, plan));
}

function listIn(db: Database, plan: ListPlan): ListResult {
  const { dir } = plan;
  const indexed = searchIndexed(db, plan.where.tokenId);
  const w = indexed ? plan.where : plan.plain;
  const rw = indexed ? plan.rows : null;
  const dense = indexed ? plan.dense : null;
  // An exact match is counted from the index alone for plain bodies: narrowed, it would not be exact.
  const match = !indexed ? null : plan.text && !dense?.exact ? narrowMatch(db, plan.text) : plan.match;
  const bound = (from: string, sql: string, params: unknown[]): number => (db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${sql} LIMIT ?)`).get(...params, COUNT_BOUND + 1) as { n: number }).n;
  let total: number;
  let totalCapped = false;
  // Counted up to the bound only: past it, the exact figure would cost a scan of every match.
  if (match !== null && dense) total = bound(denseFrom(dense.readsFields), `request_text MATCH ? AND ${dense.sql}`, [match, ...dense.params]);
  else if (match !== null && rw) total = bound(DRIVEN, `request_text MATCH ? AND ${rw.sql}`, [match, ...rw.params]);
  else if (w.filtered) total = bound(fromFor(w), w.sql, w.params);
  // The token's counter (kept by the catch-up, deletions and trimming): exact once caught up.
  else total = (db.prepare('SELECT request_count FROM tokens WHERE uuid = ?').pluck().get(w.tokenId) as number | undefined) ?? 0;
  if (w.filtered && total > COUNT_BOUND) ((total = COUNT_BOUND), (totalCapped = true));
  let rows: Row[];
  if (match !== null && rw && total < SORT_CANDIDATES_BELOW) {
    rows = db.prepare(`SELECT r.* FROM ${DRIVEN} WHERE request_text MATCH ? AND ${rw.sql} ORDER BY r.sorting ${dir}, r.seq ${dir} LIMIT ? OFFSET ?`).all(match, ...rw.params, plan.limit, plan.offset) as Row[];
  } else {
    // Deferred join: the page's seqs from the index (no row read unless the filter needs one),
    // then only those rows.
    rows = db
      .prepare(
        `SELECT r.* FROM (SELECT k.sorting AS sorting, k.seq AS seq FROM ${fromFor(w)} WHERE ${w.sql} ORDER BY k.sorting ${dir}, k.seq ${dir} LIMIT ? OFFSET ?) p
          CROSS JOIN requests r ON r.seq = p.seq ORDER BY p.sorting ${dir}, p.seq ${dir}`,
      )
      .all(...w.params, plan.limit, plan.offset) as Row[];
  }
  const items = rows.map(toRecord);
  return totalCapped ? { items, total, totalCapped } : { items, total };
}

/**
 * A walk through a token's requests from a position (listAfter): the same filter as a list or a
 * deletion (planFilters: through the search index when the token has a filled one, else reading
 * the rows), bounded by the last request returned, so each step reads its page and no more at any
 * depth. With a term the trigram index holds, each step takes that term's candidates block by
 * block of the token index (drivenWalk).
 */
export interface WalkPlan {
  filters: FilterPlans;
  dir: 'ASC' | 'DESC';
  limit: number;
  /** The last request returned: its (sorting, seq), the token index's (sorting, seq). */
  after: [sorting: number, seq: number] | null;
  /** WALK_SET_BELOW (tests lower it to walk a few requests block by block). */
  setBelow: number;
}

/** Planned on the main thread (a bad search fails there with its own error), like planList. */
export function planWalk(tokenId: string, opts: RequestWalkOptions): WalkPlan {
  return {
    filters: planFilters(tokenId, opts),
    dir: opts.sorting === 'newest' ? 'DESC' : 'ASC',
    limit: Math.max(1, Math.floor(opts.perPage)),
    after: opts.after == null ? null : positionOf(opts.after),
    setBelow: WALK_SET_BELOW,
  };
}

function positionOf(cursor: RequestCursor): [number, number] {
  let at: unknown;
  try {
    at = JSON.parse(cursor);
  } catch {
    at = null;
  }
  if (!Array.isArray(at) || at.length !== 2 || !at.every(Number.isSafeInteger)) throw new Error(`Not a request cursor of this store: ${cursor}`);
  return at as [number, number];
}

/** A key of the token index: (sorting, seq), (k.sorting, k.seq). */
type Key = [sorting: number, seq: number];

/** Runs a planned walk on `db`, a step from one snapshot: one more key than the page is read, to know whether any is left. */
export function readWalk(db: Database, plan: WalkPlan): RequestWalkPage {
  return inOneSnapshot(db, () => walkIn(db, plan));
}

function walkIn(db: Database, plan: WalkPlan): RequestWalkPage {
  const w = pickFilter(db, plan.filters);
  const driven = w === plan.filters.indexed ? plan.filters.driven : null;
  const want = plan.limit + 1;
  const rows = driven && !fewCandidates(db, driven.match, plan.setBelow) ? drivenWalk(db, plan, driven, want) : walkRows(db, w, plan.dir, plan.after, null, want);
  const more = rows.length > plan.limit;
  if (more) rows.length = plan.limit;
  const last = rows.at(-1);
  return { items: rows.map(toRecord), next: more && last ? JSON.stringify([last.sorting, last.seq]) : null };
}

/**
 * Up to `limit` rows under `w` in the walk's order, after the key `from` and up to the key `to`
 * (each when given), with `extra` SQL over the token index. Deferred join, as readList's: the
 * page's keys from the index, then only those rows.
 */
function walkRows(db: Database, w: FilterPlan, dir: 'ASC' | 'DESC', from: Key | null, to: Key | null, limit: number, extra?: { sql: string; params: unknown[] }): Row[] {
  let sql = w.sql;
  const params = [...w.params];
  // Row-value bounds on the index key: both key tables are ordered by (token_id, sorting, seq).
  if (from) ((sql += ` AND (k.sorting, k.seq) ${dir === 'ASC' ? '>' : '<'} (?, ?)`), params.push(...from));
  if (to) ((sql += ` AND (k.sorting, k.seq) ${dir === 'ASC' ? '<=' : '>='} (?, ?)`), params.push(...to));
  if (extra) ((sql += ` AND ${extra.sql}`), params.push(...extra.params));
  return db
    .prepare(
      `SELECT r.* FROM (SELECT k.sorting AS sorting, k.seq AS seq FROM ${fromFor(w)} WHERE ${sql} ORDER BY k.sorting ${dir}, k.seq ${dir} LIMIT ?) p
        CROSS JOIN requests r ON r.seq = p.seq ORDER BY p.sorting ${dir}, p.seq ${dir}`,
    )
    .all(...params, limit) as Row[];
}

/**
 * Below this many trigram candidates (in all tokens), a walk's step collects them all (the filter's
 * IN subquery: about 0.2 µs each) and checks the token index against them: cheaper than block by
 * block, which reads the token index three times (a rare word's whole export at a million
 * requests: 115 ms, against 380 block by block).
 */
export const WALK_SET_BELOW = 20_000;

const fewCandidates = (db: Database, match: string, below: number): boolean =>
  (db.prepare('SELECT count(*) FROM (SELECT 1 FROM request_text WHERE request_text MATCH ? LIMIT ?)').pluck().get(match, below) as number) < below;

/** Token index entries a text-driven walk's first block holds; each next block is twice as large, up to the maximum. */
export const WALK_BLOCK = 4_096;
const MAX_WALK_BLOCK = 262_144;

/**
 * A walk whose search has a term the trigram index holds (FilterPlans.driven), a block of the
 * token index at a time: the block's matches are its entries among the term's candidates in the
 * block's seq range (FTS5 seeks a rowid range), each checked on its row. A step then costs what its
 * blocks hold: with the term's candidates as one IN subquery, every step of an export collected
 * them all again (210 ms a step for a word in every one of a million requests, 22-30 ms block by
 * block). Seqs follow the captures' order, as sorting does, so a block's range is narrow; where
 * they differ (requests imported with older times), it is wider and the step dearer, not wrong.
 */
function drivenWalk(db: Database, plan: WalkPlan, driven: NonNullable<FilterPlans['driven']>, want: number): Row[] {
  const { dir } = plan;
  const w = driven.keyed;
  const past = `k.token_number = ${tokenNumberOf('?')} AND (k.sorting, k.seq) ${dir === 'ASC' ? '>' : '<'} (?, ?)`;
  const order = `ORDER BY k.sorting ${dir}, k.seq ${dir}`;
  const span = db.prepare<unknown[], { lo: number | null; hi: number | null; n: number }>(
    `SELECT min(seq) AS lo, max(seq) AS hi, count(*) AS n FROM (SELECT k.seq AS seq FROM search_keys k WHERE ${past} ${order} LIMIT ?)`,
  );
  const nth = db.prepare<unknown[], { sorting: number; seq: number }>(`SELECT k.sorting AS sorting, k.seq AS seq FROM search_keys k WHERE ${past} ${order} LIMIT 1 OFFSET ?`);
  const tokenId = w.tokenId;
  let from: Key = plan.after ?? (dir === 'ASC' ? [Number.MIN_SAFE_INTEGER, 0] : [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);
  const rows: Row[] = [];
  for (let size = WALK_BLOCK; ; size = Math.min(MAX_WALK_BLOCK, size * 2)) {
    const block = span.get(tokenId, ...from, size)!;
    if (!block.n) return rows;
    const end = block.n < size ? null : nth.get(tokenId, ...from, size - 1)!;
    const to: Key | null = end && [end.sorting, end.seq];
    // A BigInt binds as an integer: FTS5 ignores a rowid bound that arrives as a float.
    const candidates = { sql: 'k.seq IN (SELECT rowid FROM request_text WHERE request_text MATCH ? AND rowid BETWEEN ? AND ?)', params: [driven.match, BigInt(block.lo!), BigInt(block.hi!)] };
    rows.push(...walkRows(db, w, dir, from, to, want - rows.length, candidates));
    if (rows.length >= want || !to) return rows;
    from = to;
  }
}
