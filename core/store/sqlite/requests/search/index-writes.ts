// The search index's writes (migrations 21-27): for the tokens listed in search_tokens, the
// catch-up adds each new request's keys, full text and search rows (addRange), and fills a token
// listed with requests already FILL_ROWS at a time (fillStep). Runs inside the writer's catch-up
// transaction (writer/batch-writer.ts); imports nothing the writer thread cannot load.
import type { Database } from 'better-sqlite3';
import { headerText, plainBody } from './fts-writes.js';
import { searchKeyInsert } from './search-keys.js';
import { FILL_FROM_TOP } from './search-tokens.js';
import { tokenNumberOf } from '../token-number.js';
import { nextRun, rowPlaceholders, statementsByRun } from '../statement-runs.js';

/** Requests each catch-up adds to the search index of a token being filled (about 25 ms). */
export const FILL_ROWS = 500;

/** What search_keys holds of a request, from its row (search-keys.ts). */
const KEYS = searchKeyInsert();
/** The same, the token's number bound (`v`, a row of VALUES (number, seq)) and its request read by seq. */
const BOUND_KEYS = searchKeyInsert(undefined, 'v.column1');
/** The most keys one INSERT of search_keys from the writer's keys takes (its bound values: 2 per key). */
const KEY_RUN = 32;
/** What search_rows holds of a request `r` of a listed token `t`: its seq, the token's number, whether its body is plain. */
const SEARCH_ROW_COLUMNS = `r.seq, t.token_number, ${plainBody('r.body')}`;
/** What request_text holds of a request: its body as text, its headers' names and values (headerText), its query string's JSON. */
const TEXT_COLUMNS = `seq, CAST(body AS TEXT), ${headerText('headers')}, query`;

export interface SearchIndexWrites {
  /**
   * Indexes the requests with seq in (from, to] of the listed tokens. `known.tokens`, when given, are
   * the tokens of every one of those requests, none left out, and `keys` their keys (token number,
   * sorting, seq, flat, in key order), every one of them stored (the writer's log of its commits,
   * batch-writer.ts loggedKeys): the requests are then not each looked up in search_tokens, nor
   * their tokens in tokens.
   */
  addRange(from: number, to: number, known?: { tokens: Iterable<string>; keys: readonly number[] }): void;
  /**
   * Leaves the requests with seq in (from, to] of the listed tokens to addPending, token by token,
   * rather than indexing them now (`known` as for addRange). A chunked catch-up takes the pending
   * rows oldest first, a few hundred at a time, each of them from nearly every token receiving:
   * indexed in the same step, each token's pages of search_keys and its indexes were written in
   * every step. Pending, each token's are written once, in the step that indexes that token.
   */
  defer(from: number, to: number, known?: { tokens: Iterable<string>; keys: readonly number[] }): void;
  /** The oldest request deferred and not indexed yet (0: none). Reads wait for it (batch-writer.ts caughtTo). */
  readonly pendingFrom: number;
  /**
   * Indexes deferred requests, whole tokens at a time (oldest first within a token), until at least
   * `maxRows` were taken (a token with more than maxRows pending takes maxRows); returns how many.
   */
  addPending(maxRows: number): number;
  /**
   * What defer and addPending did in a transaction takes effect once it commits: told after each
   * transaction that may have called them, `committed` whether it did (else it is forgotten).
   */
  settle(committed: boolean): void;
  /** Adds FILL_ROWS requests of the first token waiting for its fill. */
  fillStep(): void;
  /** Whether a token waits for its fill. */
  readonly filling: boolean;
  /** A token was listed on some connection: look for fills again. */
  fillWanted(): void;
}

export function searchIndexWrites(db: Database): SearchIndexWrites {
  // The search index (migration 23): only for the tokens in search_tokens, the few that need it.
  const searching = db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM search_tokens)').pluck();
  const listed = db.prepare<[], string>('SELECT token_id FROM search_tokens').pluck();
  const SEARCHED = 'token_id IN (SELECT token_id FROM search_tokens)';
  // The catch-up's inserts are OR FAIL, as its plain keys' (batch-writer.ts): a statement journal
  // is needless, any failure rolling the whole catch-up back.
  // In key order (token number, sorting, seq), so that consecutive inserts land on the same leaf page.
  // Each `...Listed` statement checks every request's token in search_tokens; its `...All` twin
  // takes every request of the range, for when the writer knows all their tokens are listed. The
  // keys' twin takes the writer's keys instead (boundKeyRun): no token looked up, no sort.
  const addSearchKeysListed = db.prepare(
    `INSERT OR FAIL INTO search_keys (${KEYS.columns}) SELECT ${KEYS.values}
      FROM ${KEYS.from} WHERE r.seq > ? AND r.seq <= ? AND r.token_id IN (SELECT token_id FROM search_tokens) ORDER BY t.number, r.sorting, r.seq`,
  );
  // KEY_RUN keys a statement, each a (token number, seq) pair, its request read by seq.
  const boundKeyRun = statementsByRun(
    db,
    (keys) => `INSERT OR FAIL INTO search_keys (${BOUND_KEYS.columns}) SELECT ${BOUND_KEYS.values} FROM (VALUES ${rowPlaceholders(keys, 2)}) AS v CROSS JOIN requests r ON r.seq = v.column2`,
  );
  const pairs: number[] = [];
  /** Inserts the search keys of `keys` (token number, sorting, seq, flat) by runs of KEY_RUN, 16, ... 1. */
  function addBoundKeys(keys: readonly number[]): void {
    const total = keys.length / 3;
    for (let i = 0; i < total;) {
      const n = nextRun(total - i, KEY_RUN);
      for (let k = 3 * i; k < 3 * (i + n); k += 3) pairs.push(keys[k]!, keys[k + 2]!);
      try {
        boundKeyRun(n).run(...pairs);
      } finally {
        // A failed statement's values must not go to the next one too.
        pairs.length = 0;
      }
      i += n;
    }
  }
  // The full-text index: the body (content, bare words), the headers' and the query string's JSON text.
  const textSql = (where: string) => `INSERT OR FAIL INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE seq > ? AND seq <= ?${where}`;
  const addTextListed = db.prepare(textSql(` AND ${SEARCHED}`));
  const addTextAll = db.prepare(textSql(''));
  // What a search checks of a candidate without its row (migration 27): token number, plain body; method, query string.
  const addSearchRows = db.prepare(
    `INSERT OR FAIL INTO search_rows (seq, token_number, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.seq > ? AND r.seq <= ? AND t.token_id = r.token_id ORDER BY r.seq`,
  );
  const fieldsSql = (where: string) => `INSERT OR FAIL INTO search_fields (seq, method, query) SELECT seq, method, query FROM requests WHERE seq > ? AND seq <= ?${where}`;
  const addSearchFieldsListed = db.prepare(fieldsSql(` AND ${SEARCHED}`));
  const addSearchFieldsAll = db.prepare(fieldsSql(''));
  // A token listed with requests already: filled FILL_ROWS at a time, newest first, from where the
  // last fill stopped. OR IGNORE: a request the catch-up indexed meanwhile (its text too) is skipped.
  const nextFill = db.prepare<[], { token_id: string; fill_sorting: number; fill_seq: number }>('SELECT token_id, fill_sorting, fill_seq FROM search_tokens WHERE fill_sorting IS NOT NULL LIMIT 1');
  const fillKeys = db.prepare<[string, number, number, number], { sorting: number; seq: number }>(
    `SELECT sorting, seq FROM request_keys WHERE token_number = ${tokenNumberOf('?')} AND (sorting, seq) < (?, ?) ORDER BY sorting DESC, seq DESC LIMIT ?`,
  );
  const fillKey = db.prepare(`INSERT OR IGNORE INTO search_keys (${KEYS.columns}) SELECT ${KEYS.values} FROM ${KEYS.from} WHERE r.seq = ?`);
  const fillText = db.prepare(`INSERT INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE seq = ?`);
  const fillRow = db.prepare(`INSERT INTO search_rows (seq, token_number, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.seq = ? AND t.token_id = r.token_id`);
  const fillFields = db.prepare('INSERT INTO search_fields (seq, method, query) SELECT seq, method, query FROM requests WHERE seq = ?');
  const setFill = db.prepare('UPDATE search_tokens SET fill_sorting = ?, fill_seq = ? WHERE token_id = ?');
  // Deferred requests (defer, addPending): per token number, their (sorting, seq) pairs, oldest first.
  // What a transaction defers or indexes is staged, and applied once it commits (settle).
  const pending = new Map<number, number[]>();
  let pendingFrom = 0;
  /** Keys deferred by the running transaction (token number, sorting, seq, flat), and the tokens it indexed: how many pairs each. */
  const stagedKeys: number[] = [];
  const stagedTaken = new Map<number, number>();
  // The listed tokens' numbers in tokens (the keys' and search_keys' token_number; search_tokens numbers them otherwise).
  const listedNumbers = db.prepare<[], number>('SELECT t.number FROM search_tokens s CROSS JOIN tokens t ON t.uuid = s.token_id').pluck();
  const pendingKeys = db
    .prepare<[number, number], [number, number, number]>(
      `SELECT t.number, r.sorting, r.seq FROM ${KEYS.from} WHERE r.seq > ? AND r.seq <= ? AND r.token_id IN (SELECT token_id FROM search_tokens) ORDER BY t.number, r.sorting, r.seq`,
    )
    .raw();
  // The deferred requests' rows by seq (a JSON array of seqs, ascending), each statement as its addRange twin.
  const SEQS = 'seq IN (SELECT value FROM json_each(?))';
  const addPendingRows = db.prepare<[string]>(
    `INSERT OR FAIL INTO search_rows (seq, token_number, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.${SEQS} AND t.token_id = r.token_id ORDER BY r.seq`,
  );
  const addPendingFields = db.prepare<[string]>(`INSERT OR FAIL INTO search_fields (seq, method, query) SELECT seq, method, query FROM requests WHERE ${SEQS} ORDER BY seq`);
  const addPendingText = db.prepare<[string]>(`INSERT OR FAIL INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE ${SEQS} ORDER BY seq`);
  /** Whether some of `tokens`, and whether all of them, are listed (the listed tokens are few; most catch-ups have either none of them or only them). */
  function listedAmong(tokens: Iterable<string>): { some: boolean; all: boolean } {
    const searched = new Set(listed.all());
    let some = false;
    let all = true;
    for (const tokenId of tokens) {
      if (searched.has(tokenId)) some = true;
      else all = false;
    }
    return { some, all };
  }
  /** Stages the keys (token number, sorting, seq, flat, by token) of listed tokens as deferred. */
  function keep(keys: readonly number[], listedOnly: boolean): void {
    const numbers = listedOnly ? new Set(listedNumbers.all()) : null;
    for (let k = 0; k < keys.length; k += 3) if (!numbers || numbers.has(keys[k]!)) stagedKeys.push(keys[k]!, keys[k + 1]!, keys[k + 2]!);
  }
  /** Applies what the transaction that just committed staged (`committed`), or drops it. */
  function settle(committed: boolean): void {
    // Most transactions (every one without search-indexed tokens) staged nothing.
    if (!stagedKeys.length && !stagedTaken.size) return;
    if (committed) {
      for (const [number, taken] of stagedTaken) {
        const pairs = pending.get(number)!;
        if (taken < pairs.length) pairs.splice(0, taken);
        else pending.delete(number);
      }
      for (let k = 0; k < stagedKeys.length; k += 3) {
        let pairs = pending.get(stagedKeys[k]!);
        if (!pairs) pending.set(stagedKeys[k]!, (pairs = []));
        pairs.push(stagedKeys[k + 1]!, stagedKeys[k + 2]!);
      }
      pendingFrom = 0;
      for (const pairs of pending.values()) for (let i = 1; i < pairs.length; i += 2) if (!pendingFrom || pairs[i]! < pendingFrom) pendingFrom = pairs[i]!;
    }
    stagedKeys.length = 0;
    stagedTaken.clear();
  }
  // A process that stopped with requests deferred left their tokens' newest keys without search
  // keys: those tokens are filled again from their newest request (OR IGNORE: what was indexed
  // stays), their searches reading rows meanwhile. A token's deferred requests are indexed in one
  // step, oldest first, so its newest key tells.
  db.prepare(
    `UPDATE search_tokens SET fill_sorting = ${FILL_FROM_TOP}, fill_seq = ${FILL_FROM_TOP} WHERE fill_sorting IS NULL
      AND (SELECT seq FROM request_keys k WHERE k.token_number = ${tokenNumberOf('search_tokens.token_id')} ORDER BY k.sorting DESC, k.seq DESC LIMIT 1)
        IS NOT (SELECT seq FROM search_keys s WHERE s.token_number = ${tokenNumberOf('search_tokens.token_id')} ORDER BY s.sorting DESC, s.seq DESC LIMIT 1)`,
  ).run();
  /** Whether a token waits for its fill (unknown at first: yes). */
  let filling = true;
  function fillStep(): void {
    const f = nextFill.get();
    if (f) {
      const keys = fillKeys.all(f.token_id, f.fill_sorting, f.fill_seq, FILL_ROWS);
      for (const k of keys) if (fillKey.run(k.seq).changes) (fillText.run(k.seq), fillRow.run(k.seq), fillFields.run(k.seq));
      const last = keys.at(-1);
      if (keys.length === FILL_ROWS && last) setFill.run(last.sorting, last.seq, f.token_id);
      else setFill.run(null, null, f.token_id);
    }
    filling = nextFill.get() !== undefined;
  }
  return {
    addRange(from, to, known) {
      let all = false;
      if (known) {
        const among = listedAmong(known.tokens);
        if (!among.some) return;
        all = among.all;
      } else if (!searching.get()) return;
      if (all) addBoundKeys(known!.keys);
      else addSearchKeysListed.run(from, to);
      addSearchRows.run(from, to);
      (all ? addSearchFieldsAll : addSearchFieldsListed).run(from, to);
      // Last: FTS5 writes out the text it holds (a segment, its merges) at the next statement that
      // opens a savepoint (some inserts do, even OR FAIL), inside that statement's journal; with
      // none after it, the catch-up's UPDATEs being OR FAIL, it does so at the commit.
      (all ? addTextAll : addTextListed).run(from, to);
    },
    defer(from, to, known) {
      if (known) {
        if (listedAmong(known.tokens).some) keep(known.keys, true);
      } else if (searching.get()) keep(pendingKeys.all(from, to).flat(), false);
    },
    get pendingFrom() {
      return pendingFrom;
    },
    addPending(maxRows) {
      const keys: number[] = [];
      const seqs: number[] = [];
      for (const [number, pairs] of pending) {
        const take = Math.min(pairs.length, Math.max(2, 2 * (maxRows - seqs.length)));
        for (let i = 0; i < take; i += 2) {
          keys.push(number, pairs[i]!, pairs[i + 1]!);
          seqs.push(pairs[i + 1]!);
        }
        stagedTaken.set(number, take);
        if (seqs.length >= maxRows) break;
      }
      if (!seqs.length) return 0;
      addBoundKeys(keys);
      const inOrder = JSON.stringify(seqs.sort((a, b) => a - b));
      addPendingRows.run(inOrder);
      addPendingFields.run(inOrder);
      // Last, as in addRange.
      addPendingText.run(inOrder);
      return seqs.length;
    },
    settle,
    fillStep,
    get filling() {
      return filling;
    },
    fillWanted() {
      filling = true;
    },
  };
}
