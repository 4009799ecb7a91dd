// Recursive-descent parser for the Lucene-like search language (reference: webhook.site
// api/requests.md, "Search query examples"). Grammar, loosest binding first:
//
//   query   = or
//   or      = and { ("OR" | "||") and }
//   and     = unary { ["AND" | "&&"] unary }          adjacent clauses are an implicit AND
//   unary   = ("NOT" | "!" | "-") unary | primary      `-` only when glued to what follows
//   primary = "(" or ")" | "_exists_:" field | field ":" value | value
//   value   = word | "quoted" | range | ">" v | ">=" v | "<" v | "<=" v | "(" or ")"
//   range   = ("[" | "{") bound "TO" bound ("]" | "}")      `*` bound = open end
//
// So NOT binds tightest and `a OR b c` is `a OR (b AND c)`. A value without a field searches the
// default field: `content`, or `f` inside `f:( ... )`. Keywords are upper-case only; in a quoted
// value `\` escapes the next character; unquoted values are taken literally except for the `*`
// and `?` wildcards (quote a value to search for those, or for spaces, parentheses, `:`...).
// Every field and value is checked here, so a query that parses also compiles.
import type { QueryNode } from './ast.js';
import { QuerySyntaxError, quote } from './errors.js';
import { FIELD_CHAR, resolveField } from './fields.js';
import { matcherFor, type RangeNode, type TermNode } from './values.js';

export const MAX_QUERY_LENGTH = 4096;
export const MAX_QUERY_DEPTH = 32;

/** Parses a search query; null when there is nothing to search for. Throws QuerySyntaxError. */
export function parseQuery(input: string): QueryNode | null {
  if (input.length > MAX_QUERY_LENGTH) {
    throw new QuerySyntaxError(`Query is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
  }
  if (input.trim() === '') return null;
  return new Parser(input).parse();
}

type Operator = 'AND' | 'OR' | 'NOT';

const isSpace = (ch: string | undefined): boolean => ch !== undefined && /\s/.test(ch);
/** Characters that end an unquoted word. */
const isDelimiter = (ch: string | undefined): boolean => ch === undefined || isSpace(ch) || ch === '(' || ch === ')' || ch === '"';

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly src: string) {}

  parse(): QueryNode {
    const node = this.parseOr('content');
    this.skipSpace();
    // parseOr only stops early at a `)` that no `(` opened.
    if (this.pos < this.src.length) throw this.unexpected();
    return node;
  }

  private parseOr(defaultField: string): QueryNode {
    const children = [this.parseAnd(defaultField)];
    while (this.eatOperator('OR')) children.push(this.parseAnd(defaultField));
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }

  private parseAnd(defaultField: string): QueryNode {
    const children = [this.parseUnary(defaultField)];
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.src.length || this.src[this.pos] === ')' || this.peekOperator()?.op === 'OR') break;
      this.eatOperator('AND');
      children.push(this.parseUnary(defaultField));
    }
    return children.length === 1 ? children[0] : { kind: 'and', children };
  }

  private parseUnary(defaultField: string): QueryNode {
    this.skipSpace();
    const start = this.pos;
    if (!this.eatOperator('NOT')) return this.parsePrimary(defaultField);
    this.enter(start);
    const child = this.parseUnary(defaultField);
    this.depth--;
    return { kind: 'not', child };
  }

  private parsePrimary(defaultField: string): QueryNode {
    this.skipSpace();
    const start = this.pos;
    const ch = this.src[start];
    // A binary operator where an operand belongs: `AND x`, `x OR OR y`, `x AND)`...
    if (ch === undefined || ch === ')' || this.peekOperator()) throw this.unexpected();
    if (ch === '(') return this.parseGroup(defaultField);
    if (ch === '"') return this.term(defaultField, this.readQuoted(), true, start);
    if (ch === '[' || ch === '{') return this.parseRange(defaultField, start);

    // `field:` when the text up to a colon looks like a field name, else a bare word.
    let end = start;
    while (end < this.src.length && FIELD_CHAR.test(this.src[end])) end++;
    if (end > start && this.src[end] === ':') {
      const field = this.src.slice(start, end);
      this.pos = end + 1;
      return field === '_exists_' ? this.parseExists(start) : this.parseFieldValue(field, start);
    }
    return this.term(defaultField, this.readWord(), false, start);
  }

  private parseGroup(defaultField: string): QueryNode {
    const open = this.pos;
    this.enter(open);
    this.pos++;
    const node = this.parseOr(defaultField);
    this.skipSpace();
    if (this.src[this.pos] !== ')') {
      throw this.pos >= this.src.length ? new QuerySyntaxError('Missing ")" for "("', open) : this.unexpected();
    }
    this.pos++;
    this.depth--;
    this.expectBoundary();
    return node;
  }

  private parseExists(start: number): QueryNode {
    const at = this.pos;
    while (this.pos < this.src.length && FIELD_CHAR.test(this.src[this.pos])) this.pos++;
    const field = this.src.slice(at, this.pos);
    if (field === '') throw new QuerySyntaxError('Expected a field name after "_exists_:"', at);
    resolveField(field, at);
    this.expectBoundary();
    return { kind: 'exists', field, pos: start };
  }

  private parseFieldValue(field: string, start: number): QueryNode {
    resolveField(field, start);
    const ch = this.src[this.pos];
    if (ch === undefined || isSpace(ch)) throw new QuerySyntaxError(`Missing value for field ${quote(field)}`, this.pos);
    if (ch === ')') throw this.unexpected();
    if (ch === '(') return this.parseGroup(field);
    if (ch === '"') return this.term(field, this.readQuoted(), true, start);
    if (ch === '[' || ch === '{') return this.parseRange(field, start);
    if (ch === '>' || ch === '<') return this.parseComparison(field, start);
    return this.term(field, this.readWord(), false, start);
  }

  /** `field:>=v` and friends are half-open ranges. */
  private parseComparison(field: string, start: number): QueryNode {
    const greater = this.src[this.pos] === '>';
    this.pos++;
    const inclusive = this.src[this.pos] === '=';
    if (inclusive) this.pos++;
    const ch = this.src[this.pos];
    if (isDelimiter(ch) && ch !== '"') throw new QuerySyntaxError(`Missing value for field ${quote(field)}`, this.pos);
    const value = ch === '"' ? this.readQuoted() : this.readWord();
    const node: RangeNode = greater
      ? { kind: 'range', field, from: value, to: null, includeFrom: inclusive, includeTo: true, pos: start }
      : { kind: 'range', field, from: null, to: value, includeFrom: true, includeTo: inclusive, pos: start };
    return this.checked(node);
  }

  private parseRange(field: string, start: number): QueryNode {
    const includeFrom = this.src[this.pos] === '[';
    this.pos++;
    const from = this.readBound('start');
    this.skipSpace();
    const after = this.src[this.pos + 2];
    if (!(this.src.startsWith('TO', this.pos) && (after === undefined || isSpace(after) || after === ']' || after === '}'))) {
      throw new QuerySyntaxError('Expected "TO" in range', this.pos);
    }
    this.pos += 2;
    const to = this.readBound('end');
    this.skipSpace();
    const close = this.src[this.pos];
    if (close !== ']' && close !== '}') throw new QuerySyntaxError('Expected "]" or "}" to close the range', this.pos);
    this.pos++;
    this.expectBoundary();
    return this.checked({ kind: 'range', field, from, to, includeFrom, includeTo: close === ']', pos: start });
  }

  private readBound(which: 'start' | 'end'): string | null {
    this.skipSpace();
    const at = this.pos;
    const ch = this.src[at];
    if (ch === '"') return this.readQuoted(true);
    let end = at;
    while (end < this.src.length && !isDelimiter(this.src[end]) && this.src[end] !== ']' && this.src[end] !== '}') end++;
    const word = this.src.slice(at, end);
    if (word === '' || (which === 'start' && word === 'TO')) throw new QuerySyntaxError(`Expected range ${which}`, at);
    this.pos = end;
    return word === '*' ? null : word;
  }

  private term(field: string, value: string, quoted: boolean, pos: number): QueryNode {
    return this.checked({ kind: 'term', field, value, quoted, pos });
  }

  /** Validates the field and value now, so compile time cannot fail on user input. */
  private checked<T extends TermNode | RangeNode>(node: T): T {
    matcherFor(node, resolveField(node.field, node.pos), 0);
    return node;
  }

  private readWord(): string {
    const start = this.pos;
    while (!isDelimiter(this.src[this.pos])) this.pos++;
    this.expectBoundary();
    return this.src.slice(start, this.pos);
  }

  private readQuoted(inRange = false): string {
    const open = this.pos;
    let value = '';
    for (this.pos = open + 1; this.pos < this.src.length; this.pos++) {
      const ch = this.src[this.pos];
      if (ch === '"') {
        this.pos++;
        // A range bound may be followed directly by the closing bracket.
        const next = this.src[this.pos];
        if (!(inRange && (next === ']' || next === '}'))) this.expectBoundary();
        return value;
      }
      if (ch === '\\') this.pos++;
      if (this.pos < this.src.length) value += this.src[this.pos];
    }
    throw new QuerySyntaxError('Unterminated quoted string', open);
  }

  /** A value must be followed by space, `)` or the end: `a:"x"y` and `a:[1 TO 2]3` are errors. */
  private expectBoundary(): void {
    const ch = this.src[this.pos];
    if (ch !== undefined && ch !== ')' && !isSpace(ch)) throw this.unexpected();
  }

  private peekOperator(): { op: Operator; length: number } | null {
    const s = this.src;
    const i = this.pos;
    if (s.startsWith('&&', i)) return { op: 'AND', length: 2 };
    if (s.startsWith('||', i)) return { op: 'OR', length: 2 };
    if (s[i] === '!') return { op: 'NOT', length: 1 };
    // `-x`, `-(...)` and `-"x"` negate; a `-` followed by space is an ordinary word.
    const next = s[i + 1];
    if (s[i] === '-' && next !== undefined && next !== ')' && !isSpace(next)) return { op: 'NOT', length: 1 };
    for (const op of ['AND', 'OR', 'NOT'] as const) {
      if (s.startsWith(op, i) && isDelimiter(s[i + op.length])) return { op, length: op.length };
    }
    return null;
  }

  private eatOperator(op: Operator): boolean {
    this.skipSpace();
    const found = this.peekOperator();
    if (found?.op !== op) return false;
    this.pos += found.length;
    return true;
  }

  private enter(position: number): void {
    if (++this.depth > MAX_QUERY_DEPTH) {
      throw new QuerySyntaxError(`Query is nested deeper than ${MAX_QUERY_DEPTH} levels`, position);
    }
  }

  private skipSpace(): void {
    while (isSpace(this.src[this.pos])) this.pos++;
  }

  private unexpected(): QuerySyntaxError {
    if (this.pos >= this.src.length) return new QuerySyntaxError('Unexpected end of query', this.src.length);
    const op = this.peekOperator();
    const token = op && op.length > 1 ? this.src.slice(this.pos, this.pos + op.length) : this.src[this.pos];
    return new QuerySyntaxError(`Unexpected ${quote(token)}`, this.pos);
  }
}
