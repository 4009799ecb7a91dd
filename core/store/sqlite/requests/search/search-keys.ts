// The request fields a search-indexed token's key table (search_keys) carries beside its key
// (token_number, sorting, seq: the token's number as request_keys has it, token-number.ts): a
// search on one of them reads the key instead of the request's row, through the key's index. The
// catch-up's and the fill's INSERT (index-writes.ts) and the planner (compile-sql.ts) are both
// built from this list; docs/storage.md has the recipe for adding one.

export interface SearchKey {
  /** The requests column (the field's column in core/store/query/fields.ts). */
  readonly column: string;
  /** Its copy in search_keys (the same name since migration 31). */
  readonly key: string;
  /**
   * The value nearly every request has, which the key's index leaves out (a partial index, WHERE
   * key <> common): a search for another value says so, for the index to serve it; a search for
   * this one reads the token's keys in order, where its matches are most of what it finds.
   */
  readonly common?: string;
}

export const SEARCH_KEYS: readonly SearchKey[] = [
  // search_keys_method and search_keys_method_created (schema.sql): POST captures are not in them.
  { column: 'method', key: 'method', common: 'POST' },
  // search_keys_type (schema.sql): web captures, nearly all, are not in it.
  { column: 'type', key: 'type', common: 'web' },
  { column: 'ip', key: 'ip' },
  { column: 'created_at', key: 'created_at' },
  { column: 'size', key: 'size' },
];

/**
 * The has-a-note flag: kept by the trigger requests_note_key on note edits as well. Told without a
 * function call (length()): a function in the catch-up's multi-row INSERT makes SQLite copy every
 * page it changes, each token's leaf of search_keys and of its indexes, into a statement journal.
 */
const NOTE_FLAG = { key: 'has_note', value: "CASE WHEN r.note <> '' THEN 1 END" };

/** Where the values of searchKeyInsert come from: each request `r` joined to its token `t` for its number. */
const SEARCH_KEY_SOURCE = 'requests r CROSS JOIN tokens t ON t.uuid = r.token_id';

/**
 * search_keys' columns, and the values a SELECT FROM SEARCH_KEY_SOURCE gives them, in the same
 * order. A request whose token is gone gets no key (the join finds none). `tokenNumber`: the
 * token's number from elsewhere than the join (the values then need only the request `r`).
 */
export function searchKeyInsert(keys: readonly SearchKey[] = SEARCH_KEYS, tokenNumber = 't.number'): { columns: string; values: string; from: string } {
  return {
    columns: ['token_number', 'sorting', 'seq', ...keys.map((k) => k.key), NOTE_FLAG.key].join(', '),
    values: [tokenNumber, 'r.sorting', 'r.seq', ...keys.map((k) => `r.${k.column}`), NOTE_FLAG.value].join(', '),
    from: SEARCH_KEY_SOURCE,
  };
}

/** The key-table expression (alias `k`) of each requests column the keys carry, sorting included. */
export function keyColumns(keys: readonly SearchKey[] = SEARCH_KEYS): ReadonlyMap<string, string> {
  return new Map([...keys.map((k): [string, string] => [k.column, `k.${k.key}`]), ['sorting', 'k.sorting']]);
}
