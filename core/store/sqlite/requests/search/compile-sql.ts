// Compiles a query to a WHERE fragment for the engine's statements: the plain compiler's
// (core/store/query/sql.ts: LIKE and json_each over the requests row, every value bound) plus the
// index modes, over the token's search keys and the trigram index (keyed), from a term's full-text
// candidates (driven), or over search_rows and search_fields (dense).
import type { QueryNode } from '../../../query/ast.js';
import { resolveField, type ColumnRef, type FieldSpec, type SqlSource } from '../../../query/fields.js';
import { bareColumn, PlainSqlCompiler, type ColumnSource } from '../../../query/sql.js';
import { matcherFor, type Matcher, type PatternPart } from '../../../query/values.js';
import { keyColumns, SEARCH_KEYS, type SearchKey } from './search-keys.js';

export interface SqlFragment {
  sql: string;
  params: unknown[];
  /** Keyed mode: the fragment reads columns of `requests` (else the token index alone answers it). */
  needsRow: boolean;
  /** Dense mode: the fragment reads search_fields (method, query) as well as search_rows `s`. */
  readsFields: boolean;
  /** Dense mode: the fragment reads candidates' requests rows (other than a non-plain body's for an exact driver). */
  readsRows: boolean;
}

export interface SqlOptions {
  /**
   * Compile against the token's search keys (search_keys `k`, which carries method,
   * type, ip, created_at, size and whether there is a note, joined to requests) and the trigram
   * index (request_text: body, headers, query string): the results are the same as without, the
   * statements cheaper. Unset, the fragment reads `requests` columns only.
   */
  keyed?: boolean;
  /** The fields the keys carry (default SEARCH_KEYS; a recipe test adds one). */
  keys?: readonly SearchKey[];
  /**
   * A term the caller drives the statement from (textDriver()): its trigram candidates are not
   * checked again in the fragment, only its exact LIKE.
   */
  driven?: QueryNode;
  /**
   * Compile for a statement driven from `driven`'s full-text candidates over search_rows `s` (the
   * token's number, whether the body is plain) joined, when the fragment says so (readsFields),
   * to search_fields (method, query): a term on any other column reads the candidate's requests row
   * (an EXISTS on `requests r`, only when the rest has not decided already), and the driven term
   * itself needs no check on a plain body when the index's match is exact for it (exactMatch()).
   * Pass `driven` too.
   */
  dense?: boolean;
  /**
   * The alias the statement gives `requests` (`r`) where it joins a table sharing column names
   * with it (the token index's token_id, sorting, seq, the search keys' copies): every column the
   * fragment reads of the row is qualified. Unset, columns are named bare.
   */
  row?: string;
}

/** Columns search_fields copies (migration 27), by the requests column a field compares. */
const FIELD_COLUMNS = new Set(['method']);
const FIELD_JSON = new Set(['query']);

/**
 * Whether the trigram index's match of `node` (its full MATCH text, indexedText: not narrowed) is
 * exactly its LIKE on a plain body (search_rows.plain): content terms that are one substring of 3
 * or more ASCII characters (the index then looks for that phrase, which it finds where LIKE does),
 * or an OR of such terms. The full match of a long phrase costs more than a narrowed piece's
 * ("payment failed" at a million requests: 12 ms against 2 for "nt f"), less than reading the
 * narrowed candidates' rows (its count: 32 ms against 39, in-process, same machine and minute).
 */
export function exactMatch(node: QueryNode, now: number): boolean {
  if (node.kind === 'or') return node.children.length > 0 && node.children.every((c) => exactMatch(c, now));
  if (node.kind !== 'term') return false;
  const spec = resolveField(node.field, node.pos);
  if (spec.name !== 'content' || spec.sql.kind !== 'column') return false;
  const m = matcherFor(node, spec, now);
  if (m.kind !== 'pattern' || m.anchored || m.parts.length !== 1) return false;
  const part = m.parts[0];
  return part.kind === 'text' && part.text.length >= TRIGRAM && /^[\u0001-\u007f]+$/.test(part.text);
}

/**
 * The trigram index's MATCH text for a term every match of `node` must satisfy (the query itself,
 * or one of its top-level AND children; an OR whose every branch has candidates counts as one),
 * or null. A statement can then start from the index's candidates instead of walking every
 * request of the token. Body terms come first: they tend to be the most selective.
 */
export function textDriver(node: QueryNode, now: number): TextDriver | null {
  const terms = node.kind === 'and' ? node.children : [node];
  let fallback: TextDriver | null = null;
  for (const t of terms) {
    const match = candidateMatch(t, now);
    if (!match) continue;
    const driver = { node: t, match, text: candidateText(t, now) };
    if (t.kind === 'term' && resolveField(t.field, t.pos).name === 'content') return driver;
    fallback ??= driver;
  }
  return fallback;
}

export interface TextDriver {
  node: QueryNode;
  match: string;
  /** The match's column and literal runs when it is one term's (not an OR's): a caller may narrow it. */
  text: IndexedText | null;
}

/** What a term's MATCH text searches: every run as a phrase in one column of the trigram index. */
export interface IndexedText {
  column: string;
  runs: string[];
}

/** IndexedText for a single term or `_exists_`, or null. */
function candidateText(node: QueryNode, now: number): IndexedText | null {
  if (node.kind === 'exists') return indexedRuns(resolveField(node.field, node.pos), null);
  if (node.kind !== 'term') return null;
  const spec = resolveField(node.field, node.pos);
  const m = matcherFor(node, spec, now);
  return m.kind === 'interval' ? null : indexedRuns(spec, m.kind === 'pattern' ? m.parts : null);
}

/** MATCH text for IndexedText. */
export const matchText = (t: IndexedText): string => `${t.column} : (${phrases(t.runs)})`;

/** MATCH text whose matches include every request `node` matches, or null (no usable index text). */
function candidateMatch(node: QueryNode, now: number): string | null {
  switch (node.kind) {
    case 'or': {
      const branches = node.children.map((c) => candidateMatch(c, now));
      return branches.length && branches.every((b) => b !== null) ? branches.map((b) => `(${b})`).join(' OR ') : null;
    }
    case 'exists':
      return indexedText(resolveField(node.field, node.pos), null);
    case 'term': {
      const spec = resolveField(node.field, node.pos);
      const m = matcherFor(node, spec, now);
      return m.kind === 'interval' ? null : indexedText(spec, m.kind === 'pattern' ? m.parts : null);
    }
    default:
      return null;
  }
}

/** The trigram index's column for a JSON column's text (migration 22). */
const TEXT_COLUMNS = new Map([
  ['headers', 'hdr'],
  ['query', 'qs'],
]);

/**
 * MATCH text for a pattern (null: `_exists_`) on a field the trigram index holds, or null. Each
 * run is a quoted FTS5 phrase, a substring match for the trigram tokenizer, which folds case more
 * widely than LIKE: the index finds a superset and the exact predicate decides.
 */
function indexedText(spec: FieldSpec, parts: PatternPart[] | null): string | null {
  const t = indexedRuns(spec, parts);
  return t ? matchText(t) : null;
}

function indexedRuns(spec: FieldSpec, parts: PatternPart[] | null): IndexedText | null {
  const src = spec.sql;
  if (src.kind === 'column') {
    if (spec.name !== 'content' || !parts) return null;
    const runs = literalRuns(parts);
    return runs.length ? { column: 'txt', runs } : null;
  }
  const column = src.kind === 'json' && src.path.length > 0 ? TEXT_COLUMNS.get(src.column) : undefined;
  if (!column || src.kind !== 'json') return null;
  // A value's run is in the JSON text literally if JSON.stringify left it alone and it cannot be
  // a number's digits (SQLite writes numbers its own way, e.g. 1.0 for 1). Without one, the keys:
  // a key is there as "key" (SEGMENT keys need no escapes). Not both: a common key with a common
  // value makes the index intersect two long lists, slower than checking the rows.
  const values = (parts ? literalRuns(parts) : []).filter((r) => !/["\\\u0000-\u001f\p{Cs}]/u.test(r) && /[^0-9.+eE-]/.test(r));
  return { column, runs: values.length ? values : src.path.map((k) => `"${k}"`) };
}

/** The literal runs of 3+ characters of a pattern. */
function literalRuns(parts: PatternPart[]): string[] {
  return parts.flatMap((p) => (p.kind === 'text' && [...p.text].length >= TRIGRAM ? [p.text] : []));
}

const phrases = (runs: string[]): string => runs.map((r) => `"${r.replace(/"/g, '""')}"`).join(' AND ');

/** Fields the search index's keys (search_keys) carry, by their requests column (search-keys.ts). */
const KEY_COLUMNS = keyColumns();

/** Each key whose index leaves out its common value (SearchKey.common), by its requests column. */
const COMMON_VALUES = new Map(SEARCH_KEYS.flatMap((k): Array<[string, string]> => (k.common ? [[k.column, k.common]] : [])));

/**
 * The term that lets SQLite use a key's partial index (its WHERE, literally) when no value compared
 * is the common one (ASCII case folded, as NOCASE does): such a row can never match. Else ''.
 */
function partialIndexTerm(key: string, column: string, values: string[]): string {
  const common = COMMON_VALUES.get(column);
  if (common === undefined || values.some((v) => v.toLowerCase() === common.toLowerCase())) return '';
  return ` AND ${key} <> '${common}'`;
}

/** `_exists_` tests the token index answers, by their requests column. */
const KEY_EXISTS = new Map([['note', '(k.has_note = 1)']]);

/** The trigram index finds substrings of at least this many characters. */
const TRIGRAM = 3;

/**
 * `now` (epoch ms) anchors date math such as `now-14d`. Without options, the plain compiler's
 * fragment over `requests` (core/store/query/sql.ts); the options add the index modes.
 */
export function compileSql(node: QueryNode, now: number, options: SqlOptions = {}): SqlFragment {
  const params: unknown[] = [];
  const keys = options.keys ? keyColumns(options.keys) : KEY_COLUMNS;
  const col: ColumnRef = options.row ? (c) => `${options.row}.${c}` : bareColumn;
  const compiler = new SqlCompiler(params, now, col, options.keyed ?? false, options.driven, options.dense ?? false, keys);
  const sql = compiler.compile(node);
  return { sql, params, needsRow: compiler.needsRow, readsFields: compiler.readsFields, readsRows: compiler.readsRows };
}

/** The plain compiler with the engine's modes: keyed (search_keys and the trigram index), driven, dense. */
class SqlCompiler extends PlainSqlCompiler {
  needsRow = false;
  readsFields = false;
  readsRows = false;
  /** Dense mode: the leaf being compiled reads a column only the requests row has. */
  private leafReadsRow = false;
  /** Dense mode: compiling an exact driven node (its rows are read for non-plain bodies only). */
  private inExact = false;
  /** Inside the driven node: the statement already starts from its candidates. */
  private inDriven = false;

  constructor(
    params: unknown[],
    now: number,
    col: ColumnRef,
    private readonly keyed: boolean,
    private readonly driven: QueryNode | undefined,
    private readonly dense: boolean,
    private readonly keyColumns: ReadonlyMap<string, string>,
  ) {
    super(params, now, col);
  }

  /** The token index's copy of the column when keyed and it has one; else the row's (noted). */
  protected override columnExpr(src: ColumnSource, expr = src.expr): string {
    const key = this.keyed && !expr ? this.keyColumns.get(src.column) : undefined;
    if (key) return key;
    this.needsRow = true;
    this.reads(!expr && FIELD_COLUMNS.has(src.column));
    return super.columnExpr(src, expr);
  }

  protected override jsonColumn(column: string): string {
    this.needsRow = true;
    this.reads(FIELD_JSON.has(column));
    return super.jsonColumn(column);
  }

  /** The plain column a key copies, if the source is one (not an expression). */
  private static plainColumn(src: SqlSource): string | null {
    return src.kind === 'column' && !src.expr ? src.column : null;
  }

  /** Dense mode: notes that the leaf reads a search_fields column (else the requests row). */
  private reads(field: boolean): void {
    if (field) this.readsFields = true;
    else this.leafReadsRow = true;
  }

  override compile(node: QueryNode): string {
    if (node !== this.driven || this.inDriven) return this.compileNode(node);
    this.inDriven = true;
    try {
      // A plain body's candidate matches: the index found exactly what LIKE would.
      if (!this.dense || !exactMatch(node, this.now)) return this.compileNode(node);
      this.inExact = true;
      return `(s.plain = 1 OR ${this.compileNode(node)})`;
    } finally {
      this.inDriven = false;
      this.inExact = false;
    }
  }

  /** In dense mode a leaf that reads the requests row reads it through an EXISTS. */
  protected override leafSql(compile: () => string): string {
    if (!this.dense) return compile();
    this.leafReadsRow = false;
    const sql = compile();
    if (!this.leafReadsRow) return sql;
    if (!this.inExact) this.readsRows = true;
    return `EXISTS (SELECT 1 FROM requests r WHERE r.seq = s.seq AND ${sql})`;
  }

  protected override or(children: QueryNode[]): string {
    return this.keyIn(children) ?? super.or(children);
  }

  /**
   * Whole-value matches of one token index column (`method:PUT OR method:DELETE`) as one IN, which
   * its index answers range by range (an OR of equalities made SQLite scan the token's entries).
   */
  private keyIn(children: QueryNode[]): string | null {
    if (!this.keyed || children.length < 2) return null;
    let src: ColumnSource | null = null;
    const values: string[] = [];
    for (const c of children) {
      if (c.kind !== 'term') return null;
      const spec = resolveField(c.field, c.pos);
      const text = this.keyEquality(spec, matcherFor(c, spec, this.now));
      if (text === null || spec.sql.kind !== 'column' || (src !== null && src.column !== spec.sql.column)) return null;
      src = spec.sql;
      values.push(text);
    }
    if (src === null) return null;
    const key = this.columnExpr(src);
    return `(${key} COLLATE NOCASE IN (${values.map((v) => this.bind(v)).join(', ')})${partialIndexTerm(key, src.column, values)})`;
  }

  /** The text a whole-value match without wildcards compares a token index column to, or null. */
  private keyEquality(spec: FieldSpec, m: Matcher): string | null {
    const column = SqlCompiler.plainColumn(spec.sql);
    if (!this.keyed || m.kind !== 'pattern' || column === null || !this.keyColumns.has(column) || !m.anchored) return null;
    if (!m.parts.every((p) => p.kind === 'text')) return null;
    return m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  }

  protected override pattern(spec: FieldSpec, m: Extract<Matcher, { kind: 'pattern' }>): string {
    // A whole-value match without wildcards is an equality under NOCASE (ASCII case folding, as
    // LIKE does), which the token index's NOCASE indexes answer.
    const text = this.keyEquality(spec, m);
    if (text !== null && spec.sql.kind === 'column') {
      const key = this.columnExpr(spec.sql);
      return `(${key} = ${this.bind(text)} COLLATE NOCASE${partialIndexTerm(key, spec.sql.column, [text])})`;
    }
    // Bound in the order they appear in the SQL text.
    const candidates = this.textCandidates(spec, m.parts);
    const like = super.pattern(spec, m);
    // The index may find more (it folds non-ASCII case too): LIKE still decides, on candidates only.
    return candidates ? `(${candidates} AND ${like})` : like;
  }

  /**
   * Rows the trigram index finds for the pattern (null: `_exists_`) on this field, a superset of
   * the matches, or null when keyed mode is off, the statement is driven from this term, or the
   * index has nothing usable. Not under NOT: there, collecting every candidate of a common word
   * costs more than the exact check on the rows the rest of the query leaves.
   */
  private textCandidates(spec: FieldSpec, parts: PatternPart[] | null): string | null {
    if (!this.keyed || this.inDriven || this.negated > 0) return null;
    const match = indexedText(spec, parts);
    return match ? `(k.seq IN (SELECT rowid FROM request_text WHERE request_text MATCH ${this.bind(match)}))` : null;
  }

  protected override exists(spec: FieldSpec): string {
    const column = SqlCompiler.plainColumn(spec.sql);
    const key = this.keyed && column !== null ? KEY_EXISTS.get(column) : undefined;
    if (key) return key;
    const candidates = this.textCandidates(spec, null);
    const exact = this.existsExact(spec);
    return candidates ? `(${candidates} AND ${exact})` : exact;
  }
}
