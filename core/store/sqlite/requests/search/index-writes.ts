// The search index's writes (migrations 21-27): for the tokens listed in search_tokens, the
// catch-up adds each new request's keys, full text and search rows (addRange), and fills a token
// listed with requests already FILL_ROWS at a time (fillStep). Runs inside the writer's catch-up
// transaction (writer/batch-writer.ts); imports nothing the writer thread cannot load.
import type { Database } from 'better-sqlite3';
import { plainBody } from './fts-writes.js';
import { searchKeyInsert } from './search-keys.js';

/** Requests each catch-up adds to the search index of a token being filled (about 25 ms). */
export const FILL_ROWS = 500;

/** What search_keys holds of a request, from its row (search-keys.ts). */
const KEYS = searchKeyInsert();
/** What search_rows holds of a request `r` of a listed token `t`: its seq, the token's number, whether its body is plain. */
const SEARCH_ROW_COLUMNS = `r.seq, t.tn, ${plainBody('r.body')}`;
/** What request_text holds of a request: its body as text, its headers' and its query string's JSON. */
const TEXT_COLUMNS = 'seq, CAST(body AS TEXT), headers, query';

export interface SearchIndexWrites {
  /** Indexes the requests with seq in (from, to] of the listed tokens. */
  addRange(from: number, to: number): void;
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
  const SEARCHED = 'token_id IN (SELECT tk FROM search_tokens)';
  const addSearchKeys = db.prepare(
    `INSERT INTO search_keys (${KEYS.columns}) SELECT ${KEYS.values}
      FROM requests WHERE seq > ? AND seq <= ? AND ${SEARCHED} ORDER BY token_id, sorting, seq`,
  );
  // The full-text index: the body (content, bare words), the headers' and the query string's JSON text.
  const addText = db.prepare(`INSERT INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE seq > ? AND seq <= ? AND ${SEARCHED}`);
  // What a search checks of a candidate without its row (migration 27): token number, plain body; method, query string.
  const addSearchRows = db.prepare(
    `INSERT INTO search_rows (sq, tn, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.seq > ? AND r.seq <= ? AND t.tk = r.token_id ORDER BY r.seq`,
  );
  const addSearchFields = db.prepare(`INSERT INTO search_fields (sq, method, query) SELECT seq, method, query FROM requests WHERE seq > ? AND seq <= ? AND ${SEARCHED}`);
  // A token listed with requests already: filled FILL_ROWS at a time, newest first, from where the
  // last fill stopped. OR IGNORE: a request the catch-up indexed meanwhile (its text too) is skipped.
  const nextFill = db.prepare<[], { tk: string; fill_st: number; fill_sq: number }>('SELECT tk, fill_st, fill_sq FROM search_tokens WHERE fill_st IS NOT NULL LIMIT 1');
  const fillKeys = db.prepare<[string, number, number, number], { st: number; sq: number }>(
    'SELECT st, sq FROM request_keys WHERE tk = ? AND (st, sq) < (?, ?) ORDER BY st DESC, sq DESC LIMIT ?',
  );
  const fillKey = db.prepare(`INSERT OR IGNORE INTO search_keys (${KEYS.columns}) SELECT ${KEYS.values} FROM requests WHERE seq = ?`);
  const fillText = db.prepare(`INSERT INTO request_text (rowid, txt, hdr, qs) SELECT ${TEXT_COLUMNS} FROM requests WHERE seq = ?`);
  const fillRow = db.prepare(`INSERT INTO search_rows (sq, tn, plain) SELECT ${SEARCH_ROW_COLUMNS} FROM requests r CROSS JOIN search_tokens t WHERE r.seq = ? AND t.tk = r.token_id`);
  const fillFields = db.prepare('INSERT INTO search_fields (sq, method, query) SELECT seq, method, query FROM requests WHERE seq = ?');
  const setFill = db.prepare('UPDATE search_tokens SET fill_st = ?, fill_sq = ? WHERE tk = ?');
  /** Whether a token waits for its fill (unknown at first: yes). */
  let filling = true;
  function fillStep(): void {
    const f = nextFill.get();
    if (f) {
      const keys = fillKeys.all(f.tk, f.fill_st, f.fill_sq, FILL_ROWS);
      for (const k of keys) if (fillKey.run(k.sq).changes) (fillText.run(k.sq), fillRow.run(k.sq), fillFields.run(k.sq));
      const last = keys.at(-1);
      if (keys.length === FILL_ROWS && last) setFill.run(last.st, last.sq, f.tk);
      else setFill.run(null, null, f.tk);
    }
    filling = nextFill.get() !== undefined;
  }
  return {
    addRange(from, to) {
      if (!searching.get()) return;
      addSearchKeys.run(from, to);
      addText.run(from, to);
      addSearchRows.run(from, to);
      addSearchFields.run(from, to);
    },
    fillStep,
    get filling() {
      return filling;
    },
    fillWanted() {
      filling = true;
    },
  };
}
