// Trimming tokens to their request_limit after a catch-up put them over it, and the sweep that
// deletes the rows of trimmed requests a page at a time (and all of a lowered token's: sweepLowered). Runs inside the writer's transactions
// (batch-writer.ts): catch-up, or a trim step of its own.
import type { Database } from 'better-sqlite3';
import { tokenNumberOf } from '../token-number.js';

/**
 * Rows of trimmed requests the sweep leaves listed (request_trimmed, migration 26): the newest
 * trimmed, which lie among requests still kept when the tokens at their limit trim at different
 * rates. Beyond them, the oldest listed lie together and are deleted a page at a time.
 */
export const TRIMMED_BACKLOG = 10_000;

/**
 * The fewest rows a trim step deletes at once rather than listing them (trimPlain): fewer save less
 * than the eight statements deleteAlone runs cost, and share few pages.
 */
const ALONE_MIN_ROWS = 64;

/**
 * Trimmed rows are deleted by their seq range (deleteAlone) when at most one kept row lies among
 * every KEPT_SHARE of them: dense enough that a page written holds several.
 */
const KEPT_SHARE = 4;

/**
 * Runs of listed rows alone in their seq range that one sweep step deletes by range when the rows
 * it takes are not all alone (other rows lie among them): beyond, the rest go one by one.
 */
const SWEEP_RUNS = 8;

/** A trim step cut short by its budget takes the rest as well when it is at most 1/REMAINDER_SHARE of that budget. */
const REMAINDER_SHARE = 4;

export interface Trims {
  /**
   * Tokens a catch-up left over their request_limit, with that limit (as their captures saw it):
   * trimmed in the catch-up's transaction, or in transactions of their own after it (trim()).
   */
  readonly overLimit: Map<string, number>;
  /** Trims tokens of overLimit, at most maxRows requests in all; returns how many it trimmed. */
  trimOver(maxRows: number): number;
  /**
   * A token's request_limit was set (lowered, maybe): listed to trim to it. Its trim only takes the
   * trimmed requests out of every read (their keys, search keys included, go; their rows are listed
   * in request_trimmed), so the reads waiting for it wait little; their rows are left to
   * sweepLowered, whatever the backlog, so that they are gone soon after.
   */
  trimTo(tokenId: string, limit: number): void;
  /** Whether rows of lowered tokens' trimmed requests wait for sweepLowered. */
  readonly sweepDue: boolean;
  /** Deletes at most maxRows listed rows up to the newest a lowering trimmed, oldest first; returns how many. */
  sweepLowered(maxRows: number): number;
}

/**
 * `textLeft` is told when trimmed requests left full-text entries for the purge
 * (search/text-purge.ts): a search-indexed token's rows are deleted at once.
 */
export function createTrims(db: Database, trimmedBacklog: number, textLeft: () => void): Trims {
  const dropCount = db.prepare('UPDATE tokens SET request_count = request_count - ? WHERE uuid = ?');
  // Trimming: each token's oldest keys go (the token index by range, where they lie together) and
  // their requests' rows are listed in request_trimmed (migration 26) for the sweep: deleted right
  // away, a token's oldest rows were scattered among every other token's, a page written per
  // trimmed request (unless a step's rows are most of the rows of their seq range, the rest kept
  // requests of the tokens trimmed: deleteAlone, in trimPlain). A search-indexed token's rows go at
  // once (their keys, search_keys rows and UUID entries with them, their full-text entries listed
  // for the purge: the triggers on requests), as a search reads its full-text candidates' rows
  // directly (DRIVEN), not through the keys.
  // Each a statement per token, the rows chosen in SQL: nothing per request crosses into JavaScript.
  const KEYS_OF_T = `request_keys WHERE token_number = ${tokenNumberOf('@t')}`;
  const listOldest = db.prepare<{ t: string; n: number }>(`INSERT INTO request_trimmed (seq) SELECT seq FROM ${KEYS_OF_T} ORDER BY sorting, seq LIMIT @n`);
  // The n oldest keys: those up to the n-th (the index's range, where they lie together).
  const unkeyOldest = db.prepare<{ t: string; n: number }>(`DELETE FROM ${KEYS_OF_T} AND (sorting, seq) <= (SELECT sorting, seq FROM ${KEYS_OF_T} ORDER BY sorting, seq LIMIT 1 OFFSET @n - 1)`);
  const deleteOldest = db.prepare<{ t: string; n: number }>(`DELETE FROM requests WHERE seq IN (SELECT seq FROM ${KEYS_OF_T} ORDER BY sorting, seq LIMIT @n)`);
  const trimmedCount = db.prepare<[], number>('SELECT count(*) FROM request_trimmed').pluck();
  // The sweep: the oldest listed rows, up to a seq. While request_sweep.upto holds that seq, their
  // keys and list entries are left alone (their keys went when they were listed, their search rows
  // too: unsearchOldest) and their list entries go by range after (trigger requests_gone and the
  // views it inserts into, schema.sql). Their UUID entries and files go with them (requests_gone),
  // unless they are all the rows left in their seq range: deleteAlone.
  // The first listed seq up to a seq, and the n-th (none: fewer are listed, then counted).
  const sweepEnds = db
    .prepare<{ upto: number; n: number }, [number | null, number | null]>(
      'SELECT (SELECT seq FROM request_trimmed WHERE seq <= @upto ORDER BY seq LIMIT 1), (SELECT seq FROM request_trimmed WHERE seq <= @upto ORDER BY seq LIMIT 1 OFFSET @n - 1)',
    )
    .raw();
  const sweepTail = db.prepare<[number], [number | null, number]>('SELECT max(seq), count(*) FROM request_trimmed WHERE seq <= ?').raw();
  const sweepMark = db.prepare<[number, number]>('UPDATE request_sweep SET upto = ?, ids_upto = ?');
  const sweepRows = db.prepare<[number]>('DELETE FROM requests WHERE seq IN (SELECT seq FROM request_trimmed WHERE seq <= ?)');
  const unlist = db.prepare<[number]>('DELETE FROM request_trimmed WHERE seq <= ?');
  // The first stored row of a seq range that is not listed (where a run of listed rows ends), and
  // the newest listed row before a seq and how many are listed from another up to it.
  const firstUnlisted = db
    .prepare<[number, number], number>('SELECT r.seq FROM requests r WHERE r.seq BETWEEN ? AND ? AND NOT EXISTS (SELECT 1 FROM request_trimmed t WHERE t.seq = r.seq) ORDER BY r.seq LIMIT 1')
    .pluck();
  const listedBefore = db.prepare<[number, number], [number | null, number]>('SELECT max(seq), count(*) FROM request_trimmed WHERE seq >= ? AND seq < ?').raw();
  // Rows of a seq range.
  const storedIn = db.prepare<[number, number], number>('SELECT count(*) FROM requests WHERE seq BETWEEN ? AND ?').pluck();
  const uuidOf = db.prepare<[number], string>('SELECT uuid FROM requests WHERE seq = ?').pluck();
  // At most `limit` UUID entries of the UUID range read: only a range not much wider than the rows'
  // is deleted that way (UUIDs out of seq order, rows copied from another store or from a skewed
  // clock, can make it span most of the index).
  // Read as the limit-th UUID from the range's first: a walk of the index that neither compares
  // each entry's key nor counts it (a quarter of counting the range's cost, in-process).
  const idsOver = db.prepare<[string, number, string], number | null>('SELECT (SELECT uuid FROM request_ids WHERE uuid >= ? ORDER BY uuid LIMIT 1 OFFSET ?) <= ?').pluck();
  // The kept rows' seqs (a JSON array) are skipped; their UUID entries, which a range of UUIDs
  // takes as well (the statement deletes as it reads: skipping them would make it read all first),
  // are put back.
  const NOT_KEPT = 'seq NOT IN (SELECT value FROM json_each(@kept))';
  const unidRange = db.prepare<[string, string, number, number]>('DELETE FROM request_ids WHERE uuid BETWEEN ? AND ? AND seq BETWEEN ? AND ?');
  const reidKept = db.prepare<[string]>('INSERT OR IGNORE INTO request_ids (uuid, seq) SELECT uuid, seq FROM requests WHERE seq IN (SELECT value FROM json_each(?))');
  // The UUID entries of rows whose UUIDs lay outside the range (only ever a few).
  const unidRest = db.prepare<{ from: number; to: number; kept: string }>(`DELETE FROM request_ids WHERE (uuid, seq) IN (SELECT uuid, seq FROM requests WHERE seq BETWEEN @from AND @to AND ${NOT_KEPT})`);
  const anyFiles = db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM request_files)').pluck();
  const unfileRange = db.prepare<{ from: number; to: number; kept: string }>(`DELETE FROM request_files WHERE request_uuid IN (SELECT uuid FROM requests WHERE seq BETWEEN @from AND @to AND ${NOT_KEPT})`);
  const deleteSeqs = db.prepare<{ from: number; to: number; kept: string }>(`DELETE FROM requests WHERE seq BETWEEN @from AND @to AND ${NOT_KEPT}`);
  /**
   * Deletes the `count` rows of trimmed requests from seq `from` to `to` (their keys and list
   * entries gone, or left to the caller) if they and the `kept` rows (seqs: candidates, a few kept
   * requests of the trimmed tokens) are all the rows of that range, and returns how many it
   * deleted: the rows by that range, their UUID entries by the range of their UUIDs, from the
   * millisecond of the first one's to the end of the last one's (UUIDv7 begins with it, so the
   * oldest lie together; those of rows whose clock went back, by their rows), and their files if
   * there are any, each in one statement that skips the kept rows, while request_sweep.ids_upto
   * holds `to` too, so that the rows' trigger does nothing (in-process, about 0.5 µs a row less).
   * Returns null, deleting nothing, if other rows lie among them, more kept rows than a
   * KEPT_SHARE-th of `count`, or their UUID range holds many more entries than theirs. `alone`:
   * the caller found no other row in the range.
   */
  function deleteAlone(from: number, to: number, count: number, kept: number[] = [], alone = false): number | null {
    // Seqs are unique: as many rows as the range has seqs are all of it. Past twice as many seqs,
    // the range is taken to hold other rows (rather than gaps, rows deleted another way) unread.
    const seqs = to - from + 1;
    const rows = count + kept.length;
    if (kept.length > count / KEPT_SHARE || (!alone && seqs !== rows && (seqs > 2 * rows || storedIn.get(from, to) !== rows))) return null;
    const [firstId, lastId] = [uuidOf.get(from), uuidOf.get(to)];
    if (firstId === undefined || lastId === undefined) return null;
    const first = firstId.slice(0, 13);
    const last = `${lastId.slice(0, 13)}~`;
    const limit = 2 * rows + 64;
    if (idsOver.get(first, limit - 1, last)) return null;
    const range = { from, to, kept: JSON.stringify(kept) };
    // Back to 0 before any other statement of the transaction: other deletions clean up per row.
    sweepMark.run(to, to);
    if (anyFiles.get()) unfileRange.run(range);
    let unid = unidRange.run(first, last, from, to).changes;
    if (kept.length) unid -= reidKept.run(range.kept).changes;
    if (unid < count) unidRest.run(range);
    const n = deleteSeqs.run(range).changes;
    sweepMark.run(0, 0);
    return n;
  }
  /**
   * Deletes the oldest listed rows up to seq `upto`, at most `maxRows`; returns how many. Rows that
   * other rows lie among (those of other tokens stored meanwhile, or kept requests) are deleted
   * by the runs of them alone in their seq range, at least ALONE_MIN_ROWS each and up to
   * SWEEP_RUNS of them a step, and the rest one by one.
   */
  function sweepUpTo(upto: number, maxRows: number): number {
    let swept = 0;
    for (let runs = 0; swept < maxRows; runs++) {
      const [from, nth] = sweepEnds.get({ upto, n: maxRows - swept })!;
      if (from === null) break;
      const [bound, listed] = nth !== null ? [nth, maxRows - swept] : (sweepTail.get(upto)! as [number, number]);
      // Listed rows are rows still stored: a row deleted any other way takes its list entry with it.
      let n = deleteAlone(from, bound, listed);
      if (n === null && runs < SWEEP_RUNS) {
        const other = firstUnlisted.get(from, bound);
        if (other === undefined) n = deleteAlone(from, bound, listed, [], true);
        else {
          // The run before the first other row, alone by its range; the rest at the next run.
          const [head, headCount] = listedBefore.get(from, other)!;
          const inHead = head !== null && headCount >= ALONE_MIN_ROWS ? deleteAlone(from, head, headCount, [], true) : null;
          if (inHead !== null) {
            unlist.run(head!);
            swept += inHead;
            continue;
          }
        }
      }
      if (n === null) {
        sweepMark.run(bound, 0);
        n = sweepRows.run(bound).changes;
        sweepMark.run(0, 0);
      }
      unlist.run(bound);
      swept += n;
      if (nth === null) break;
    }
    return swept;
  }
  // The over-limit tokens' stored counts (none: deleted) and whether each is search-indexed, read
  // in one statement a step rather than two a token.
  const countsAndSearched = db
    .prepare<[string], [string, number | null, number]>('SELECT j.value, t.request_count, EXISTS (SELECT 1 FROM search_tokens s WHERE s.token_id = j.value) FROM json_each(?) j LEFT JOIN tokens t ON t.uuid = j.value')
    .raw();
  // A lowered search-indexed token's trimmed requests leave its search index at once, by the same
  // key range as unkeyOldest (run before it), rather than with their rows: their full-text entries
  // listed for the purge (which the sweep's trigger can no longer do once their search_keys rows
  // are gone), their dense rows and search keys deleted. Until the purge, a search driven by the
  // full-text index skips them as listed in request_trimmed (planRowFilter).
  const TRIMMED_KEYS = `FROM search_keys WHERE token_number = ${tokenNumberOf('@t')} AND (sorting, seq) <= (SELECT sorting, seq FROM ${KEYS_OF_T} ORDER BY sorting, seq LIMIT 1 OFFSET @n - 1)`;
  const unsearchOldest = [
    db.prepare<{ t: string; n: number }>(`INSERT OR IGNORE INTO request_text_stale (seq) SELECT seq ${TRIMMED_KEYS}`),
    db.prepare<{ t: string; n: number }>(`DELETE FROM search_rows WHERE seq IN (SELECT seq ${TRIMMED_KEYS})`),
    db.prepare<{ t: string; n: number }>(`DELETE FROM search_fields WHERE seq IN (SELECT seq ${TRIMMED_KEYS})`),
    db.prepare<{ t: string; n: number }>(`DELETE ${TRIMMED_KEYS}`),
  ];
  // A token's trim that is neither a lowering's nor a search-indexed token's (most: tokens held at
  // their limit) runs in SQL for every such token of the step at once, in four statements a step
  // rather than three a token (each statement has a fixed cost, its call and its statement
  // journal, that ~12 requests a token did not repay), each token by ranges of the token index:
  // - (token, n) rows inserted into a view of this connection's, whose trigger notes each token's
  //   bound in a table of this connection's: its n-th oldest key, read by one walk of its index
  //   range (a join on the token's row, both parts of the key at once), with its number
  //   (request_keys' key) and its row of tokens (its count then dropped by rowid). A token with
  //   fewer keys gets none there, which the range's count tells (fewer than the step trims): a
  //   statement of its own then gives it its newest (none, if it has none: then only its count
  //   drops), so that the common step runs no statement for it;
  // - every token's keys up to its bound listed in request_trimmed in seq order, which appends
  //   (the rows trimmed before lie below), rather than token by token, an insert among them each
  //   (or, at least ALONE_MIN_ROWS with few kept rows among them, their rows deleted at once);
  // - each token's keys up to its bound deleted and its count dropped, by a view's trigger again:
  //   the bound a value of the trigger's row rather than a subquery of the DELETE, SQLite deletes
  //   the range in one pass, each key where the scan stands, rather than collecting the keys first
  //   and seeking each again;
  // - the bounds kept until the next step (keptAmong reads them then), which clears them.
  // No scalar SQL function in these statements (json_each, a table, is read, not called), no NOT
  // NULL to check, the inserts OR FAIL: a statement that writes several rows and may stop half-way
  // (any function may fail) copies every page it changes into a statement journal first, here each
  // trimmed token's leaf of the token index and its row of tokens; a step that fails rolls back
  // whole anyway.
  // The newest key's column, the bound of a token with fewer keys than it trims (a rare path).
  const newest = (column: string) => `(SELECT ${column} FROM request_keys WHERE token_number = t.number ORDER BY sorting DESC, seq DESC LIMIT 1)`;
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS trim_bounds (token_id TEXT, token_rowid INTEGER, token_number INTEGER, n INTEGER, upto_sorting INTEGER, upto_seq INTEGER);
    CREATE TEMP TABLE IF NOT EXISTS trim_previous (token_number INTEGER, upto_sorting INTEGER, upto_seq INTEGER);
    CREATE TEMP VIEW IF NOT EXISTS trim_bound (token_id, n) AS SELECT NULL, NULL;
    CREATE TEMP TRIGGER IF NOT EXISTS trim_bound_each INSTEAD OF INSERT ON trim_bound BEGIN
      INSERT INTO trim_bounds (token_id, token_rowid, token_number, n, upto_sorting, upto_seq)
        SELECT NEW.token_id, t.rowid, t.number, NEW.n, k.sorting, k.seq
        FROM tokens t CROSS JOIN request_keys k ON k.token_number = t.number
        WHERE t.uuid = NEW.token_id ORDER BY k.sorting, k.seq LIMIT 1 OFFSET NEW.n - 1;
    END;
    CREATE TEMP VIEW IF NOT EXISTS trim_unkey (token_rowid, token_number, n, upto_sorting, upto_seq) AS SELECT NULL, NULL, NULL, NULL, NULL;
    CREATE TEMP TRIGGER IF NOT EXISTS trim_unkey_each INSTEAD OF INSERT ON trim_unkey BEGIN
      DELETE FROM request_keys WHERE token_number = NEW.token_number AND (sorting, seq) <= (NEW.upto_sorting, NEW.upto_seq);
      UPDATE tokens SET request_count = request_count - NEW.n WHERE rowid = NEW.token_rowid;
    END;
  `);
  // Tokens with fewer keys than they trim (or none, or deleted meanwhile), which the trigger left
  // without a bound: their newest key (none: only their count drops).
  const boundRest = db.prepare<[string]>(
    `INSERT OR FAIL INTO temp.trim_bounds (token_id, token_rowid, token_number, n, upto_sorting, upto_seq)
     SELECT j.key, t.rowid, t.number, j.value, ${newest('sorting')}, ${newest('seq')}
     FROM json_each(?) j LEFT JOIN tokens t ON t.uuid = j.key WHERE j.key NOT IN (SELECT token_id FROM temp.trim_bounds)`,
  );
  const TRIMMED = 'FROM temp.trim_bounds b CROSS JOIN request_keys k ON k.token_number = b.token_number AND (k.sorting, k.seq) <= (b.upto_sorting, b.upto_seq)';
  const trimPlainSteps = [
    db.prepare<[string]>('INSERT OR FAIL INTO temp.trim_bound (token_id, n) SELECT key, value FROM json_each(?)'),
    db.prepare<[], [number, number | null, number | null, number | null]>(`SELECT count(*), min(k.seq), max(k.seq), max(k.sorting) ${TRIMMED}`).raw(),
    db.prepare<[]>(`INSERT OR FAIL INTO request_trimmed (seq) SELECT k.seq ${TRIMMED} ORDER BY k.seq`),
    db.prepare<[]>('INSERT OR FAIL INTO temp.trim_unkey (token_rowid, token_number, n, upto_sorting, upto_seq) SELECT token_rowid, token_number, n, upto_sorting, upto_seq FROM temp.trim_bounds'),
    db.prepare<[]>('DELETE FROM temp.trim_bounds'),
  ] as const;
  // The previous step's bounds kept for keptAmong, the step's own cleared.
  const keepPrevious = [
    db.prepare<[]>('DELETE FROM temp.trim_previous'),
    db.prepare<[]>('INSERT OR FAIL INTO temp.trim_previous (token_number, upto_sorting, upto_seq) SELECT token_number, upto_sorting, upto_seq FROM temp.trim_bounds WHERE token_number IS NOT NULL'),
  ] as const;
  const listedIn = db.prepare<[number, number], number>('SELECT count(*) FROM request_trimmed WHERE seq BETWEEN ? AND ?').pluck();
  // Kept requests among the trimmed rows, of the tokens this step trims (after their bound) or the
  // previous step trimmed (any they still have: those it cut short with its budget, their newest
  // kept ones among the rest's oldest), up to the newest trimmed's sorting (those that came in
  // meanwhile, or answered out of order), each token's read from its bound. Candidates, none of
  // them trimmed: deleteAlone counts the range's rows.
  const keptAmong = db
    .prepare<{ from: number; to: number; sorting: number }, number>(
      `SELECT k.seq FROM (SELECT token_number, upto_sorting, upto_seq FROM temp.trim_bounds
         UNION ALL SELECT token_number, upto_sorting, upto_seq FROM temp.trim_previous WHERE token_number NOT IN (SELECT token_number FROM temp.trim_bounds WHERE token_number IS NOT NULL)) b
       CROSS JOIN request_keys k ON k.token_number = b.token_number AND (k.sorting, k.seq) > (b.upto_sorting, b.upto_seq) AND k.sorting <= @sorting WHERE k.seq BETWEEN @from AND @to`,
    )
    .pluck();
  const unlistIn = db.prepare<[number, number]>('DELETE FROM request_trimmed WHERE seq BETWEEN ? AND ?');
  /**
   * Trims each token of `counts` (a JSON object: token -> requests) by its oldest requests. Their
   * rows are deleted at once when they are at least ALONE_MIN_ROWS and, with rows listed before
   * (a lowering's, say) and a few kept requests of the tokens trimmed (keptAmong) among them, all
   * the rows of their seq range (deleteAlone): pages written hold several. Otherwise they are
   * listed for the sweep. Returns how many it listed.
   */
  function trimPlain(counts: string, total: number): number {
    const [bound, range, list, unkey, clear] = trimPlainSteps;
    for (const statement of keepPrevious) statement.run();
    clear.run();
    bound.run(counts);
    let [n, from, to, sorting] = range.get()!;
    // Fewer keys up to the bounds than requests to trim: some token had fewer keys than it trims.
    if (n < total) {
      boundRest.run(counts);
      [n, from, to, sorting] = range.get()!;
    }
    let listed = 0;
    if (n >= ALONE_MIN_ROWS && from !== null && to !== null) {
      const among = listedIn.get(from, to)!;
      const kept = to - from + 1 === n + among ? [] : keptAmong.all({ from, to, sorting: sorting! });
      if (deleteAlone(from, to, n + among, kept) === null) listed = list.run().changes;
      else if (among) unlistIn.run(from, to);
    } else if (n) listed = list.run().changes;
    unkey.run();
    return listed;
  }
  // The newest row of the n oldest keys (a lowering's, for sweepLowered), read before they go.
  const newestOldest = db.prepare<{ t: string; n: number }, number | null>(`SELECT max(seq) FROM (SELECT seq FROM ${KEYS_OF_T} ORDER BY sorting, seq LIMIT @n)`).pluck();

  const overLimit = new Map<string, number>();
  // Tokens a stopped process left over their limit, between a catch-up and its trims (which wait for
  // the catch-up's last step: catch-up-schedule.ts): this writer's first steps trim them, to their
  // stored limit. Read once, when the writer starts.
  for (const [tokenId, limit] of db.prepare<[], [string, number]>('SELECT uuid, request_limit FROM tokens WHERE request_count > request_limit').raw().all()) overLimit.set(tokenId, limit);
  /** Tokens of overLimit lowered (trimTo): their trimmed rows are left to sweepLowered. */
  const lowered = new Set<string>();
  /** The newest seq a lowering listed in request_trimmed and sweepLowered has not deleted yet (0: none). */
  let sweepTo = 0;
  /**
   * Trims tokens of overLimit, at most maxRows requests in all (a token it stops inside stays
   * listed). Only the oldest go, so the latest request is unchanged: no need to recount. Tokens
   * held at their limit (trimPlain) each trim the same share of their excess when maxRows is short
   * of it all: rather than some trimming all and others nothing, whose rows lie among theirs, the
   * step's rows are the oldest of every such token, together in their seq range (deleteAlone).
   * Each step costs a few statements per token it trims, so a remainder of at most a
   * REMAINDER_SHARE-th of maxRows is trimmed with the rest rather than left to a step of its own.
   */
  function trimOver(maxRows: number): number {
    if (!overLimit.size) return 0;
    let trimmed = 0;
    /** Rows listed for the sweep. */
    let listed = 0;
    /** Plain tokens' excess (trimPlain), in all and each. */
    let plainExcess = 0;
    const plain = new Map<string, number>();
    const stored = new Map<string, [count: number | null, searched: number]>();
    for (const [tokenId, count, searched] of countsAndSearched.all(JSON.stringify([...overLimit.keys()]))) stored.set(tokenId, [count, searched]);
    for (const [tokenId, limit] of overLimit) {
      const [count, searched] = stored.get(tokenId)!;
      const excess = (count ?? limit) - limit;
      const isSearched = searched === 1;
      const isLowered = lowered.has(tokenId);
      if (excess > 0 && !isSearched && !isLowered) {
        plain.set(tokenId, excess);
        plainExcess += excess;
        continue;
      }
      const take = Math.min(excess, maxRows - trimmed);
      if (take > 0) {
        const oldest = { t: tokenId, n: take };
        let n: number;
        if (isSearched && !isLowered) {
          // Their keys, UUID entries and search rows go with them (trigger requests_gone).
          n = deleteOldest.run(oldest).changes;
        } else {
          if (isLowered) sweepTo = Math.max(sweepTo, newestOldest.get(oldest) ?? 0);
          n = listOldest.run(oldest).changes;
          if (n) {
            const range = { t: tokenId, n };
            if (isSearched) for (const s of unsearchOldest) s.run(range);
            unkeyOldest.run(range);
          }
          // A lowering's rows are left to sweepLowered, not counted for the ordinary sweep's step.
          if (!isLowered) listed += n;
        }
        // The next catch-up purges their entries (it looks only while some are known to be listed).
        if (n && isSearched) textLeft();
        if (n && (isSearched || isLowered)) dropCount.run(n, tokenId);
        trimmed += n;
      }
      if (take < excess) continue;
      overLimit.delete(tokenId);
      lowered.delete(tokenId);
    }
    const budget = maxRows - trimmed;
    const all = plainExcess <= budget * (1 + 1 / REMAINDER_SHARE);
    if (plainExcess && budget > 0) {
      // Each its share, rounded down, and one more for the first ones while the budget lasts.
      const share = all ? 1 : budget / plainExcess;
      const takes: Record<string, number> = {};
      let rows = 0;
      for (const [tokenId, excess] of plain) rows += takes[tokenId] = Math.floor(excess * share);
      for (const [tokenId, excess] of plain) {
        if (rows < budget && takes[tokenId]! < excess) {
          takes[tokenId]!++;
          rows++;
        }
        if (takes[tokenId] === excess) overLimit.delete(tokenId);
        else if (!takes[tokenId]) delete takes[tokenId];
      }
      listed += trimPlain(JSON.stringify(takes), rows);
      trimmed += rows;
    }
    if (listed) sweep(listed);
    return trimmed;
  }

  /**
   * Deletes the oldest listed rows of trimmed requests beyond the newest `trimmedBacklog`, at most
   * maxRows. Kept that long, the oldest lie together (every token at its limit trimmed past them),
   * so a page written holds several.
   */
  function sweep(maxRows: number): number {
    const over = trimmedCount.get()! - trimmedBacklog;
    return over > 0 ? sweepUpTo(Number.MAX_SAFE_INTEGER, Math.min(over, maxRows)) : 0;
  }
  function trimTo(tokenId: string, limit: number): void {
    overLimit.set(tokenId, Math.min(overLimit.get(tokenId) ?? limit, limit));
    lowered.add(tokenId);
  }
  /**
   * Rows another way of deleting took meanwhile (a token's deletion, a bulk delete) are simply not
   * found. Rows of other tokens' trims below sweepTo go with them: listed, they were due anyway.
   */
  function sweepLowered(maxRows: number): number {
    if (!sweepTo) return 0;
    const n = sweepUpTo(sweepTo, maxRows);
    if (n < maxRows) sweepTo = 0;
    return n;
  }
  return {
    overLimit,
    trimOver,
    trimTo,
    get sweepDue() {
      return sweepTo > 0;
    },
    sweepLowered,
  };
}
