// Compiles a query to a WHERE fragment for the SQLite `requests` table. The SQL text only ever
// contains `?` placeholders and trusted snippets from fields.ts; values, LIKE patterns and JSON
// paths are all bound parameters.
//
// Matching: LIKE with ESCAPE '\' (so `%` and `_` in user text are literal), which is
// case-insensitive for ASCII letters only (SQLite without ICU). JSON values are searched through
// json_each, so an array (header values, destinations, action output) matches when any element
// does, and JSON booleans compare as the words true/false.
import type { QueryNode } from './ast.js';
import { resolveField, type FieldSpec } from './fields.js';
import { matcherFor, type Matcher, type PatternPart } from './values.js';

export interface SqlFragment {
  sql: string;
  params: unknown[];
  /** Keyed mode: the fragment reads columns of `requests` (else the token index alone answers it). */
  needsRow: boolean;
}

export interface SqlOptions {
  /**
   * Compile against the token index (core/store/sqlite: request_keys `k`, which carries method,
   * type, ip and created_at, joined to requests) and the body's trigram index (request_text): the
   * results are the same as without, the statements cheaper. Unset, the fragment reads `requests`
   * columns only.
   */
  keyed?: boolean;
  /**
   * A term the caller drives the statement from (textDriver()): its trigram candidates are not
   * checked again in the fragment, only its exact LIKE.
   */
  driven?: QueryNode;
}

/**
 * The trigram index's MATCH text for a `content` term every match of `node` must satisfy (the
 * query itself, or one of its top-level AND children), or null. A statement can then start from
 * the index's candidates instead of walking every request of the token.
 */
export function textDriver(node: QueryNode, now: number): { node: QueryNode; match: string } | null {
  const terms = node.kind === 'and' ? node.children : [node];
  for (const t of terms) {
    if (t.kind !== 'term') continue;
    const spec = resolveField(t.field, t.pos);
    if (spec.name !== 'content') continue;
    const m = matcherFor(t, spec, now);
    const match = m.kind === 'pattern' ? trigramMatch(m.parts) : null;
    if (match) return { node: t, match };
  }
  return null;
}

/** FTS5 MATCH text: every literal run of 3+ characters as a quoted phrase (a substring, for the trigram tokenizer). */
function trigramMatch(parts: PatternPart[]): string | null {
  const runs = parts.flatMap((p) => (p.kind === 'text' && [...p.text].length >= TRIGRAM ? [p.text] : []));
  return runs.length ? runs.map((r) => `"${r.replace(/"/g, '""')}"`).join(' AND ') : null;
}

/** Fields the token index (request_keys) carries, by their requests column. */
const KEY_COLUMNS = new Map([
  ['method', 'k.km'],
  ['type', 'k.kty'],
  ['ip', 'k.kip'],
  ['created_at', 'k.kca'],
  ['sorting', 'k.st'],
]);

/** The trigram index finds substrings of at least this many characters. */
const TRIGRAM = 3;

/** `now` (epoch ms) anchors date math such as `now-14d`. */
export function compileSql(node: QueryNode, now: number, options: SqlOptions = {}): SqlFragment {
  const params: unknown[] = [];
  const compiler = new SqlCompiler(params, now, options.keyed ?? false, options.driven);
  const sql = compiler.compile(node);
  return { sql, params, needsRow: compiler.needsRow };
}

/** A JSON value as text for LIKE: JSON true/false come out of json_each as 1/0 otherwise. */
const JSON_TEXT = "(CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE j.value END)";

class SqlCompiler {
  needsRow = false;

  constructor(
    private readonly params: unknown[],
    private readonly now: number,
    private readonly keyed: boolean,
    private readonly driven?: QueryNode,
  ) {}

  /** The column expression to compare: the token index's copy when keyed and it has one. */
  private columnExpr(expr: string): string {
    const key = this.keyed ? KEY_COLUMNS.get(expr) : undefined;
    if (key) return key;
    this.needsRow = true;
    return expr;
  }

  compile(node: QueryNode): string {
    switch (node.kind) {
      case 'and':
        return this.join(node.children.map((c) => this.compile(c)), 'AND', '1');
      case 'or':
        return this.join(node.children.map((c) => this.compile(c)), 'OR', '0');
      case 'not':
        // A NULL (e.g. note LIKE ? on a NULL note) means "no match", so NOT must see 0, not NULL.
        return `(NOT COALESCE(${this.compile(node.child)}, 0))`;
      case 'exists':
        return this.exists(resolveField(node.field, node.pos));
      case 'term':
      case 'range': {
        const spec = resolveField(node.field, node.pos);
        return this.leaf(spec, matcherFor(node, spec, this.now), node === this.driven);
      }
    }
  }

  /**
   * Joins as a balanced tree: SQLite caps expression depth at 1000, which a flat chain of a
   * thousand short clauses (well within the query length limit) would exceed.
   */
  private join(parts: string[], op: 'AND' | 'OR', empty: string): string {
    if (parts.length === 0) return empty;
    if (parts.length === 1) return parts[0];
    const mid = Math.ceil(parts.length / 2);
    return `(${this.join(parts.slice(0, mid), op, empty)} ${op} ${this.join(parts.slice(mid), op, empty)})`;
  }

  private leaf(spec: FieldSpec, m: Matcher, driven = false): string {
    if (m.kind === 'exists') return this.exists(spec);
    if (m.kind === 'pattern') {
      const src = spec.sql;
      // A whole-value match without wildcards is an equality under NOCASE (ASCII case folding, as
      // LIKE does), which the token index's NOCASE indexes answer.
      if (this.keyed && src.kind === 'column' && KEY_COLUMNS.has(src.expr) && m.anchored && m.parts.every((p) => p.kind === 'text')) {
        const text = m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
        return `(${this.columnExpr(src.expr)} = ${this.bind(text)} COLLATE NOCASE)`;
      }
      // Bound in the order they appear in the SQL text.
      const candidates = this.keyed && !driven && spec.name === 'content' ? this.textCandidates(m.parts) : null;
      const like = this.like(spec, likePattern(m.parts, m.anchored));
      // The index may find more (it folds non-ASCII case too): LIKE still decides, on candidates only.
      return candidates ? `(${candidates} AND ${like})` : like;
    }
    return this.interval(spec, m);
  }

  /**
   * Rows whose body contains every literal run of 3+ characters of the pattern, from the trigram
   * index (a quoted FTS5 phrase is a substring match there), or null when no run is long enough.
   */
  private textCandidates(parts: PatternPart[]): string | null {
    const match = trigramMatch(parts);
    return match ? `(k.sq IN (SELECT rowid FROM request_text WHERE request_text MATCH ${this.bind(match)}))` : null;
  }

  private exists(spec: FieldSpec): string {
    const src = spec.sql;
    if (src.kind !== 'column') this.needsRow = true;
    switch (src.kind) {
      case 'files':
        return `EXISTS (SELECT 1 FROM json_each(files) AS f WHERE ${this.fileKey(src.key)})`;
      case 'column':
        if (spec.match === 'number' || spec.match === 'date') return `(${this.columnExpr(src.expr)} IS NOT NULL)`;
        return `(length(${this.columnExpr(src.existsExpr ?? src.expr)}) > 0)`;
      case 'json': {
        const path = this.bind(jsonPath(src.path));
        if (spec.exists === 'present') return `(COALESCE(json_type(${src.column}, ${path}), 'null') <> 'null')`;
        return `EXISTS (SELECT 1 FROM json_each(${src.column}, ${path}) AS j WHERE j.type <> 'null' AND NOT (j.type = 'text' AND j.value = ''))`;
      }
    }
  }

  private like(spec: FieldSpec, pattern: string): string {
    const src = spec.sql;
    if (src.kind !== 'column') this.needsRow = true;
    switch (src.kind) {
      case 'column':
        return `(${this.columnExpr(src.expr)} LIKE ${this.bind(pattern)} ESCAPE '\\')`;
      case 'json': {
        const path = this.bind(jsonPath(src.path));
        return (
          `EXISTS (SELECT 1 FROM json_each(${src.column}, ${path}) AS j ` +
          `WHERE j.type NOT IN ('object', 'array') AND ${JSON_TEXT} LIKE ${this.bind(pattern)} ESCAPE '\\')`
        );
      }
      case 'files':
        return (
          `EXISTS (SELECT 1 FROM json_each(files) AS f WHERE ${this.fileKey(src.key)} ` +
          `AND json_extract(f.value, '$.filename') LIKE ${this.bind(pattern)} ESCAPE '\\')`
        );
    }
  }

  private interval(spec: FieldSpec, m: Extract<Matcher, { kind: 'interval' }>): string {
    // Only number and date fields produce intervals, and those are all plain columns.
    if (spec.sql.kind !== 'column') throw new Error(`Field ${spec.name} has no SQL column`);
    const col = this.columnExpr(spec.sql.expr);
    const parts: string[] = [];
    if (m.lo !== null) parts.push(`${col} ${m.loInclusive ? '>=' : '>'} ${this.bind(m.lo)}`);
    if (m.hi !== null) parts.push(`${col} ${m.hiInclusive ? '<=' : '<'} ${this.bind(m.hi)}`);
    return parts.length ? `(${parts.join(' AND ')})` : `(${col} IS NOT NULL)`;
  }

  /** The file sent as form field `key`, or with id `key`. */
  private fileKey(key: string): string {
    return `(json_extract(f.value, '$.name') = ${this.bind(key)} OR json_extract(f.value, '$.id') = ${this.bind(key)})`;
  }

  private bind(value: unknown): string {
    this.params.push(value);
    return '?';
  }
}

/** `*` → `%`, `?` → `_`; literal `\`, `%` and `_` are escaped for ESCAPE '\'. */
export function likePattern(parts: PatternPart[], anchored: boolean): string {
  const body = parts
    .map((p) => (p.kind === 'many' ? '%' : p.kind === 'one' ? '_' : p.text.replace(/[\\%_]/g, '\\$&')))
    .join('');
  return anchored ? body : `%${body}%`;
}

/**
 * `$."a"."b"` for SQLite's JSON functions. SQLite has no escapes inside a quoted label, so keys
 * with `"` or `\` are refused (fields.ts already limits keys to letters, digits, `_` and `-`).
 */
export function jsonPath(keys: string[]): string {
  for (const key of keys) {
    if (/["\\]/.test(key) || key === '') throw new Error(`Unsafe JSON key ${JSON.stringify(key)}`);
  }
  return '$' + keys.map((k) => `."${k}"`).join('');
}
