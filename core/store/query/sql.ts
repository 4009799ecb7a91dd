// The plain SQL compiler: a query as a WHERE over the logical request columns (the names of
// core/store/request-columns.ts), for a table holding a row per request. It knows no index: the
// SQLite engine's compiler (core/store/sqlite/requests/search/compile-sql.ts) extends it with its
// key-table, full-text and dense modes. The SQL text only ever contains `?` placeholders and
// trusted snippets from fields.ts; values, LIKE patterns and JSON paths are all bound parameters.
//
// Matching: LIKE with ESCAPE '\' (so `%` and `_` in user text are literal), which is
// case-insensitive for ASCII letters only (SQLite without ICU). JSON values are searched through
// json_each, so an array (header values, destinations, action output) matches when any element
// does, and JSON booleans compare as the words true/false.
import type { QueryNode } from './ast.js';
import { resolveField, type ColumnRef, type FieldSpec, type SqlSource } from './fields.js';
import { matcherFor, type Matcher, type PatternPart } from './values.js';

export interface PlainSql {
  sql: string;
  params: unknown[];
}

/** A field's source when it is a column or an expression over columns. */
export type ColumnSource = Extract<SqlSource, { kind: 'column' }>;

/** Columns named bare. */
export const bareColumn: ColumnRef = (c) => c;

/**
 * `now` (epoch ms) anchors date math such as `now-14d`; `column` names each request column in the
 * SQL (bare by default, or qualified where the statement joins tables sharing names).
 */
export function compilePlainSql(node: QueryNode, now: number, column: ColumnRef = bareColumn): PlainSql {
  const params: unknown[] = [];
  const sql = new PlainSqlCompiler(params, now, column).compile(node);
  return { sql, params };
}

/** A JSON value as text for LIKE: JSON true/false come out of json_each as 1/0 otherwise. */
const JSON_TEXT = "(CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE j.value END)";

/**
 * Compiles node by node. The protected methods are where a compiler for an indexed table steps in:
 * which expression a column reads (columnExpr, jsonColumn), a leaf's SQL as a whole (leafSql), an
 * OR's, `_exists_`'s and a pattern's.
 */
export class PlainSqlCompiler {
  /** How many NOTs the node being compiled is under. */
  protected negated = 0;

  constructor(
    protected readonly params: unknown[],
    protected readonly now: number,
    protected readonly col: ColumnRef,
  ) {}

  compile(node: QueryNode): string {
    return this.compileNode(node);
  }

  protected compileNode(node: QueryNode): string {
    switch (node.kind) {
      case 'and':
        return this.join(
          node.children.map((c) => this.compile(c)),
          'AND',
          '1',
        );
      case 'or':
        return this.or(node.children);
      case 'not':
        // A NULL (e.g. note LIKE ? on a NULL note) means "no match", so NOT must see 0, not NULL.
        this.negated++;
        try {
          return `(NOT COALESCE(${this.compile(node.child)}, 0))`;
        } finally {
          this.negated--;
        }
      case 'exists':
        return this.leafSql(() => this.exists(resolveField(node.field, node.pos)));
      case 'term':
      case 'range': {
        const spec = resolveField(node.field, node.pos);
        return this.leafSql(() => this.leaf(spec, matcherFor(node, spec, this.now)));
      }
    }
  }

  protected or(children: QueryNode[]): string {
    return this.join(
      children.map((c) => this.compile(c)),
      'OR',
      '0',
    );
  }

  /** A leaf's SQL, from `compile`. */
  protected leafSql(compile: () => string): string {
    return compile();
  }

  /**
   * Joins as a balanced tree: SQLite caps expression depth at 1000, which a flat chain of a
   * thousand short clauses (well within the query length limit) would exceed.
   */
  protected join(parts: string[], op: 'AND' | 'OR', empty: string): string {
    if (parts.length === 0) return empty;
    if (parts.length === 1) return parts[0];
    const mid = Math.ceil(parts.length / 2);
    return `(${this.join(parts.slice(0, mid), op, empty)} ${op} ${this.join(parts.slice(mid), op, empty)})`;
  }

  /** The expression a column field compares (`expr`, default the source's own). */
  protected columnExpr(src: ColumnSource, expr = src.expr): string {
    return expr ? expr(this.col) : this.col(src.column);
  }

  /** A JSON text column (or `files`) a leaf reads. */
  protected jsonColumn(column: string): string {
    return this.col(column);
  }

  protected leaf(spec: FieldSpec, m: Matcher): string {
    if (m.kind === 'exists') return this.exists(spec);
    if (m.kind === 'pattern') return this.pattern(spec, m);
    return this.interval(spec, m);
  }

  protected pattern(spec: FieldSpec, m: Extract<Matcher, { kind: 'pattern' }>): string {
    return this.like(spec, likePattern(m.parts, m.anchored));
  }

  protected exists(spec: FieldSpec): string {
    return this.existsExact(spec);
  }

  protected existsExact(spec: FieldSpec): string {
    const src = spec.sql;
    switch (src.kind) {
      case 'files':
        return `EXISTS (SELECT 1 FROM json_each(${this.jsonColumn('files')}) AS f WHERE ${this.fileKey(src.key)})`;
      case 'column':
        if (spec.match === 'number' || spec.match === 'date') return `(${this.columnExpr(src)} IS NOT NULL)`;
        return `(length(${this.columnExpr(src, src.existsExpr ?? src.expr)}) > 0)`;
      case 'json': {
        const column = this.jsonColumn(src.column);
        const path = this.bind(jsonPath(src.path));
        if (spec.exists === 'present') return `(COALESCE(json_type(${column}, ${path}), 'null') <> 'null')`;
        return `EXISTS (SELECT 1 FROM json_each(${column}, ${path}) AS j WHERE j.type <> 'null' AND NOT (j.type = 'text' AND j.value = ''))`;
      }
    }
  }

  protected like(spec: FieldSpec, pattern: string): string {
    const src = spec.sql;
    switch (src.kind) {
      case 'column':
        return `(${this.columnExpr(src)} LIKE ${this.bind(pattern)} ESCAPE '\\')`;
      case 'json': {
        const column = this.jsonColumn(src.column);
        const path = this.bind(jsonPath(src.path));
        return `EXISTS (SELECT 1 FROM json_each(${column}, ${path}) AS j ` + `WHERE j.type NOT IN ('object', 'array') AND ${JSON_TEXT} LIKE ${this.bind(pattern)} ESCAPE '\\')`;
      }
      case 'files':
        return `EXISTS (SELECT 1 FROM json_each(${this.jsonColumn('files')}) AS f WHERE ${this.fileKey(src.key)} ` + `AND json_extract(f.value, '$.filename') LIKE ${this.bind(pattern)} ESCAPE '\\')`;
    }
  }

  protected interval(spec: FieldSpec, m: Extract<Matcher, { kind: 'interval' }>): string {
    // Only number and date fields produce intervals, and those are all plain columns.
    if (spec.sql.kind !== 'column') throw new Error(`Field ${spec.name} has no SQL column`);
    const col = this.columnExpr(spec.sql);
    const parts: string[] = [];
    if (m.lo !== null) parts.push(`${col} ${m.loInclusive ? '>=' : '>'} ${this.bind(m.lo)}`);
    if (m.hi !== null) parts.push(`${col} ${m.hiInclusive ? '<=' : '<'} ${this.bind(m.hi)}`);
    return parts.length ? `(${parts.join(' AND ')})` : `(${col} IS NOT NULL)`;
  }

  /** The file sent as form field `key`, or with id `key`. */
  private fileKey(key: string | null): string {
    if (key === null) return '1';
    return `(json_extract(f.value, '$.name') = ${this.bind(key)} OR json_extract(f.value, '$.id') = ${this.bind(key)})`;
  }

  protected bind(value: unknown): string {
    this.params.push(value);
    return '?';
  }
}

/** `*` → `%`, `?` → `_`; literal `\`, `%` and `_` are escaped for ESCAPE '\'. */
export function likePattern(parts: PatternPart[], anchored: boolean): string {
  const body = parts.map((p) => (p.kind === 'many' ? '%' : p.kind === 'one' ? '_' : p.text.replace(/[\\%_]/g, '\\$&'))).join('');
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
