// A recursive-descent parser. Precedence, lowest first: assignment; `or`/`||`; `and`/`&&`;
// comparisons (chainable: `5 > n > 0`); ranges `a..b`, `a..step..b`; `+ -`; `* / %`; unary `! -`;
// calls, indexing and `.name()` chaining. Statements end at `;`, a line break, `}` or the end.
import type { AssignNode, CompareOp, Expr, FuncNode, IdentNode, Program, Stmt } from './ast.js';
import { WsSyntaxError, type Position } from './errors.js';
import { MAX_NESTING } from './limits.js';
import { tokenize, type Token } from './lexer.js';

const COMPARE = new Set(['==', '!=', '<', '>', '<=', '>=']);
const ASSIGN = new Set(['=', '+=', '-=', '*=', '/=']);

export function parse(src: string): Program {
  return new Parser(tokenize(src)).program();
}

function describe(t: Token): string {
  if (t.type === 'eof') return 'the end of the script';
  if (t.type === 'str') return 'a string';
  if (t.type === 'num') return `number ${t.value}`;
  return `"${t.value}"`;
}

/**
 * Operator and call chains (`1 + 1 + ...`, `a.b().c()...`) are parsed by loops, not recursion, but
 * make trees as high as they are long, and the interpreter recurses once per level. So a
 * statement's tree may be at most this high.
 */
const MAX_TREE_HEIGHT = MAX_NESTING * 5;

/** Levels of nodes below `root` (arrays of nodes do not count as a level), walked without recursion. */
function treeHeight(root: object): number {
  let max = 0;
  const stack: Array<[object, number]> = [[root, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > max) max = depth;
    for (const v of Object.values(node)) if (v !== null && typeof v === 'object') stack.push([v as object, Array.isArray(v) ? depth : depth + 1]);
  }
  return max;
}

class Parser {
  private i = 0;
  private depth = 0;
  /** Loops around the current position (within the current function): break/continue need one. */
  private loops = 0;

  constructor(private readonly tokens: Token[]) {}

  private get t(): Token {
    return this.tokens[this.i];
  }

  private peek(n = 1): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)];
  }

  private is(value: string, t = this.t): boolean {
    return (t.type === 'punct' || t.type === 'keyword') && t.value === value;
  }

  private next(): Token {
    const t = this.t;
    if (t.type !== 'eof') this.i++;
    return t;
  }

  private error(msg: string, at: Position = this.t): never {
    throw new WsSyntaxError(msg, { line: at.line, col: at.col });
  }

  private expect(value: string, what?: string): Token {
    if (!this.is(value)) this.error(`Expected "${value}"${what ? ` ${what}` : ''} but found ${describe(this.t)}`);
    return this.next();
  }

  private ident(what: string): Token {
    if (this.t.type !== 'ident') this.error(`Expected ${what} but found ${describe(this.t)}`);
    return this.next();
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) this.error(`The script is nested more than ${MAX_NESTING} levels deep`);
  }

  program(): Program {
    const body: Stmt[] = [];
    while (this.t.type !== 'eof') {
      const s = this.statement();
      if (s && treeHeight(s) > MAX_TREE_HEIGHT) this.error(`The script is nested more than ${MAX_TREE_HEIGHT} levels deep (a chain of operators or calls counts one level per link)`, s);
      if (s) body.push(s);
    }
    return { body };
  }

  private block(): Stmt[] {
    this.enter();
    const body: Stmt[] = [];
    if (this.is('{')) {
      const open = this.next();
      while (!this.is('}')) {
        if (this.t.type === 'eof') this.error(`The "{" at line ${open.line}:${open.col} is never closed`);
        const s = this.statement();
        if (s) body.push(s);
      }
      this.next();
    } else {
      const s = this.statement();
      if (s) body.push(s);
    }
    this.depth--;
    return body;
  }

  /** After a simple statement: `;`, a line break, `}` or the end. */
  private end(): void {
    if (this.is(';')) {
      this.next();
      return;
    }
    if (this.t.nl || this.is('}') || this.is('else') || this.t.type === 'eof') return;
    this.error(`Unexpected ${describe(this.t)}: expected ";" or a new line`);
  }

  private statement(): Stmt | null {
    const t = this.t;
    const at = { line: t.line, col: t.col };
    if (this.is(';')) {
      this.next();
      return null;
    }
    if (this.is('{')) return { kind: 'block', ...at, body: this.block() };
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'if': {
          this.next();
          this.expect('(', 'after "if"');
          const test = this.expression();
          this.expect(')', 'after the condition');
          const then = this.block();
          let otherwise: Stmt[] | null = null;
          if (this.is('else')) {
            this.next();
            otherwise = this.block();
          }
          return { kind: 'if', ...at, test, then, else: otherwise };
        }
        case 'while': {
          this.next();
          this.expect('(', 'after "while"');
          const test = this.expression();
          this.expect(')', 'after the condition');
          return { kind: 'while', ...at, test, body: this.loopBody() };
        }
        case 'for':
          return this.forStatement(at);
        case 'return': {
          this.next();
          const value = this.t.nl || this.is(';') || this.is('}') || this.t.type === 'eof' ? null : this.expression();
          this.end();
          return { kind: 'return', ...at, value };
        }
        case 'break':
        case 'continue':
          if (!this.loops) this.error(`"${t.value}" outside a loop`);
          this.next();
          this.end();
          return { kind: t.value, ...at };
        case 'function':
          if (this.peek().type === 'ident') {
            this.next();
            const name = this.next().value;
            return { kind: 'function', ...at, func: this.functionRest(at, name) };
          }
          break;
        case 'else':
          this.error('"else" without a matching "if"');
      }
    }
    const expr = this.expression();
    this.end();
    return { kind: 'expr', ...at, expr };
  }

  private forStatement(at: Position): Stmt {
    this.next();
    this.expect('(', 'after "for"');
    // for (value in x), for (key, value in x)
    if (this.t.type === 'ident' && (this.is('in', this.peek()) || (this.is(',', this.peek()) && this.peek(2).type === 'ident' && this.is('in', this.peek(3))))) {
      let key: string | null = null;
      let value = this.next().value;
      if (this.is(',')) {
        this.next();
        key = value;
        value = this.next().value;
      }
      this.expect('in');
      const iterable = this.expression();
      this.expect(')', 'after the for header');
      return { kind: 'forin', ...at, key, value, iterable, body: this.loopBody() };
    }
    // for (init; test; update)
    const init = this.is(';') ? null : this.expression();
    this.expect(';', 'in the for header (use "for (item in array)" or "for (init; condition; update)")');
    const test = this.is(';') ? null : this.expression();
    this.expect(';', 'in the for header');
    const update = this.is(')') ? null : this.expression();
    this.expect(')', 'after the for header');
    return { kind: 'for', ...at, init, test, update, body: this.loopBody() };
  }

  private loopBody(): Stmt[] {
    this.loops++;
    const body = this.block();
    this.loops--;
    return body;
  }

  /** A function body: break/continue do not reach loops outside it. */
  private functionBody(): Stmt[] {
    const loops = this.loops;
    this.loops = 0;
    const body = this.block();
    this.loops = loops;
    return body;
  }

  private functionRest(at: Position, name: string | null): FuncNode {
    this.expect('(', 'before the parameters');
    const params = this.params(')');
    this.expect(')', 'after the parameters');
    if (!this.is('{')) this.error(`Expected "{" to start the function body but found ${describe(this.t)}`);
    const body = this.functionBody();
    return { kind: 'func', ...at, sync: true, name, params, body, expr: null };
  }

  private params(close: string): FuncNode['params'] {
    const params: FuncNode['params'] = [];
    const seen = new Set<string>();
    while (!this.is(close)) {
      const p = this.ident('a parameter name');
      if (seen.has(p.value)) this.error(`Duplicate parameter "${p.value}"`, p);
      seen.add(p.value);
      let dflt: Expr | null = null;
      if (this.is('=')) {
        this.next();
        dflt = this.or();
      }
      params.push({ name: p.value, default: dflt });
      if (!this.is(',')) break;
      this.next();
    }
    return params;
  }

  expression(): Expr {
    this.enter();
    const e = this.assignment();
    this.depth--;
    return e;
  }

  private assignment(): Expr {
    const left = this.or();
    if (this.t.type === 'punct' && ASSIGN.has(this.t.value)) {
      const opTok = this.next();
      if (left.kind !== 'ident' && left.kind !== 'index' && left.kind !== 'append') this.error(`Cannot assign to this expression`, opTok);
      if (left.kind === 'append' && opTok.value !== '=') this.error(`"[]" only appends with "="`, opTok);
      const value = this.assignment();
      const node: AssignNode = { kind: 'assign', line: left.line, col: left.col, sync: left.kind === 'ident' && value.sync, op: opTok.value as AssignNode['op'], target: left, value };
      return node;
    }
    if (left.kind === 'append') this.error('"[]" can only be assigned to (a[] = value)', left);
    return left;
  }

  private or(): Expr {
    let left = this.and();
    while (this.is('or') || this.is('||')) {
      this.next();
      const right = this.and();
      left = { kind: 'logical', op: 'or', line: left.line, col: left.col, sync: left.sync && right.sync, left, right };
    }
    return left;
  }

  private and(): Expr {
    let left = this.comparison();
    while (this.is('and') || this.is('&&')) {
      this.next();
      const right = this.comparison();
      left = { kind: 'logical', op: 'and', line: left.line, col: left.col, sync: left.sync && right.sync, left, right };
    }
    return left;
  }

  private comparison(): Expr {
    const first = this.range();
    if (!(this.t.type === 'punct' && COMPARE.has(this.t.value))) return first;
    const ops: CompareOp[] = [];
    const operands: Expr[] = [first];
    while (this.t.type === 'punct' && COMPARE.has(this.t.value)) {
      ops.push(this.next().value as CompareOp);
      operands.push(this.range());
    }
    return { kind: 'compare', line: first.line, col: first.col, sync: operands.every((o) => o.sync), ops, operands };
  }

  private range(): Expr {
    const from = this.additive();
    if (!this.is('..')) return from;
    this.next();
    let to = this.additive();
    let step: Expr | null = null;
    if (this.is('..')) {
      this.next();
      step = to;
      to = this.additive();
    }
    return { kind: 'range', line: from.line, col: from.col, sync: from.sync && to.sync && (step?.sync ?? true), from, step, to };
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.is('+') || this.is('-')) {
      const op = this.next().value as '+' | '-';
      const right = this.multiplicative();
      left = { kind: 'binary', op, line: left.line, col: left.col, sync: left.sync && right.sync, left, right };
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    while (this.is('*') || this.is('/') || this.is('%')) {
      const op = this.next().value as '*' | '/' | '%';
      const right = this.unary();
      left = { kind: 'binary', op, line: left.line, col: left.col, sync: left.sync && right.sync, left, right };
    }
    return left;
  }

  private unary(): Expr {
    if (this.is('!') || this.is('-') || this.is('+')) {
      const t = this.next();
      this.enter();
      const arg = this.unary();
      this.depth--;
      return { kind: 'unary', op: t.value as '!' | '-' | '+', line: t.line, col: t.col, sync: arg.sync, arg };
    }
    return this.postfix();
  }

  private args(): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    while (!this.is(')')) {
      args.push(this.expression());
      if (!this.is(',')) break;
      this.next();
    }
    this.expect(')', 'to close the argument list');
    return args;
  }

  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      // A "(" or "[" on a new line starts a new statement rather than calling or indexing.
      if (this.is('(') && !this.t.nl) {
        const args = this.args();
        e = { kind: 'call', line: e.line, col: e.col, sync: false, callee: e, args };
      } else if (this.is('[') && !this.t.nl) {
        this.next();
        if (this.is(']')) {
          this.next();
          e = { kind: 'append', line: e.line, col: e.col, sync: e.sync, object: e };
          continue;
        }
        const index = this.expression();
        this.expect(']', 'to close the index');
        e = { kind: 'index', line: e.line, col: e.col, sync: e.sync && index.sync, object: e, index };
      } else if (this.is('.')) {
        const dot = this.next();
        const name = this.t.type === 'ident' || this.t.type === 'keyword' ? this.next() : this.error(`Expected a function name after "."`);
        if (!this.is('(') || this.t.nl) this.error(`Expected "(" after ".${name.value}": only functions can follow a "." (value.${name.value}())`, dot);
        const args = this.args();
        e = { kind: 'method', line: name.line, col: name.col, sync: false, object: e, name: name.value, args };
      } else return e;
    }
  }

  /** True when the tokens from the current "(" form an arrow function's parameter list. */
  private arrowAhead(): boolean {
    let j = this.i + 1;
    const tok = (k: number) => this.tokens[Math.min(k, this.tokens.length - 1)];
    if (tok(j).type === 'punct' && tok(j).value === ')') return tok(j + 1).value === '=>' && tok(j + 1).type === 'punct';
    for (;;) {
      if (tok(j).type !== 'ident') return false;
      j++;
      if (tok(j).type === 'punct' && tok(j).value === '=') {
        // A default value: skip to the "," or ")" at this depth.
        let depth = 0;
        j++;
        while (tok(j).type !== 'eof') {
          const v = tok(j).type === 'punct' ? tok(j).value : '';
          if (v === '(' || v === '[' || v === '{') depth++;
          else if (v === ')' || v === ']' || v === '}') {
            if (depth === 0) break;
            depth--;
          } else if (v === ',' && depth === 0) break;
          j++;
        }
      }
      const v = tok(j);
      if (v.type === 'punct' && v.value === ',') {
        j++;
        continue;
      }
      return v.type === 'punct' && v.value === ')' && tok(j + 1).type === 'punct' && tok(j + 1).value === '=>';
    }
  }

  private arrowBody(at: Position, params: FuncNode['params']): FuncNode {
    this.expect('=>');
    if (this.is('{')) return { kind: 'func', ...at, sync: true, name: null, params, body: this.functionBody(), expr: null };
    const expr = this.expression();
    return { kind: 'func', ...at, sync: true, name: null, params, body: [], expr };
  }

  private primary(): Expr {
    const t = this.t;
    const at = { line: t.line, col: t.col };
    switch (t.type) {
      case 'num':
        this.next();
        return { kind: 'num', ...at, sync: true, value: t.num! };
      case 'str':
        this.next();
        return { kind: 'str', ...at, sync: true, value: t.value };
      case 'regex':
        this.next();
        return { kind: 'regex', ...at, sync: true, source: t.value };
      case 'ident':
        if (this.is('=>', this.peek())) {
          this.next();
          return this.arrowBody(at, [{ name: t.value, default: null }]);
        }
        this.next();
        return { kind: 'ident', ...at, sync: true, name: t.value } satisfies IdentNode;
      case 'keyword':
        if (t.value === 'true' || t.value === 'false' || t.value === 'null') {
          this.next();
          return { kind: 'const', ...at, sync: true, value: t.value === 'null' ? null : t.value === 'true' };
        }
        if (t.value === 'function') {
          this.next();
          const name = this.t.type === 'ident' ? this.next().value : null;
          return this.functionRest(at, name);
        }
        break;
      case 'punct':
        if (t.value === '(') {
          if (this.arrowAhead()) {
            this.next();
            const params = this.params(')');
            this.expect(')');
            return this.arrowBody(at, params);
          }
          this.next();
          const e = this.expression();
          this.expect(')', `to close the "(" at line ${t.line}:${t.col}`);
          return e;
        }
        if (t.value === '[') return this.arrayLiteral();
        break;
      case 'eof':
        this.error('Unexpected end of the script: an expression is missing');
    }
    return this.error(`Unexpected ${describe(t)}`);
  }

  private arrayLiteral(): Expr {
    const open = this.next();
    this.enter();
    const items: Array<{ key: Expr | null; value: Expr }> = [];
    while (!this.is(']')) {
      if (this.t.type === 'eof') this.error(`The "[" at line ${open.line}:${open.col} is never closed`);
      const first = this.expression();
      if (this.is(':')) {
        this.next();
        items.push({ key: first, value: this.expression() });
      } else items.push({ key: null, value: first });
      if (!this.is(',')) break;
      this.next();
    }
    this.expect(']', `to close the "[" at line ${open.line}:${open.col}`);
    this.depth--;
    return { kind: 'array', line: open.line, col: open.col, sync: items.every((x) => x.value.sync && (x.key?.sync ?? true)), items };
  }
}
