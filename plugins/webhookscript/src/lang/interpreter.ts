// Walks the syntax tree. Expressions without calls are evaluated synchronously; statements and
// calls are async, because library functions may wait (HTTP, global variables). Every expression
// and statement is a step; the run ends with an error at the step, recursion, size or time limit.
// Scripts run on the event loop, so a run hands it back every SLICE_MS (captures, other scripts)
// and may hold it for at most limits.maxRunMs in all; time spent waiting (HTTP) does not count.
import type { AssignNode, BinaryNode, CompareNode, Expr, FuncNode, IndexNode, Program, RangeNode, Stmt, UnaryNode } from './ast.js';
import { Halt, WsLimitError, WsRuntimeError, WsSyntaxError, type Position } from './errors.js';
import { DEFAULT_LIMITS, MAX_ARRAY_ITEMS, type Limits } from './limits.js';
import { parse } from './parser.js';
import { Scope, WsArray, WsFunction, WsRegex, charAt, isTruthy, looseEquals, normKey, numberText, order, typeName, type CallInfo, type NativeFn, type Value } from './values.js';

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
const RETURN = 3;
type Completion = typeof NORMAL | typeof BREAK | typeof CONTINUE | typeof RETURN;

/** How long a run holds the event loop before it lets other work run. */
const SLICE_MS = 10;
/**
 * Units of work between two readings of the clock (reading it costs about as much as a few steps):
 * a step is one unit, data handled by a library call or a string operation one per KiB or 64 items.
 */
const CLOCK_EVERY = 256;

/** Work units for handling a value: large strings and arrays cost more than a step. */
function dataUnits(v: Value | undefined): number {
  if (typeof v === 'string') return v.length >>> 10;
  if (v instanceof WsArray) return v.size >>> 6;
  return 0;
}

export interface InterpreterOptions {
  /** Library functions by name. */
  builtins: ReadonlyMap<string, NativeFn>;
  limits?: Partial<Limits>;
  /** Throws to end the run (time budget spent, aborted); called every 1024 steps and after pauses. */
  checkpoint?: () => void;
  /** Regex matching with a watchdog (the SDK's regexTest); plain RegExp.test without one. */
  regexTest?: (re: RegExp, subject: string) => boolean;
  regexReplace?: (re: RegExp, subject: string, replacement: string) => string;
}

export class Interpreter {
  readonly limits: Limits;
  readonly global = new Scope(null);
  steps = 0;
  private depth = 0;
  private allocation = 0;
  /** Work since the clock was last read (see CLOCK_EVERY). */
  private work = 0;
  /** Time on the event loop in earlier slices, and when the current slice began. */
  private busyMs = 0;
  private sliceStart = performance.now();
  /** The current slice is over: hand the event loop back at the next statement, iteration or call. */
  private yieldDue = false;
  private returnValue: Value = null;
  private lastValue: Value = null;
  private readonly regexes = new WeakMap<object, WsRegex>();
  private readonly match: (re: RegExp, s: string) => boolean;
  private readonly replace: (re: RegExp, s: string, r: string) => string;

  constructor(private readonly options: InterpreterOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.match = options.regexTest ?? ((re, s) => ((re.lastIndex = 0), re.test(s)));
    this.replace = options.regexReplace ?? ((re, s, r) => s.replace(re, r));
  }

  /** Runs a program in the global scope; gives its top-level `return` value (or null). */
  async run(program: Program): Promise<Value> {
    return this.runIn(program, this.global);
  }

  async runIn(program: Program, scope: Scope): Promise<Value> {
    this.lastValue = null;
    const r = await this.execBlock(program.body, scope);
    if (r === RETURN) {
      const v = this.returnValue;
      this.returnValue = null;
      return v;
    }
    return this.lastValue;
  }

  // ---- limits -------------------------------------------------------------------------------

  private tick(): void {
    if (++this.steps > this.limits.maxSteps) {
      throw new WsLimitError(`The script was stopped after ${this.limits.maxSteps.toLocaleString('en')} steps (an endless loop?)`);
    }
    if ((this.steps & 1023) === 0) this.options.checkpoint?.();
    if (++this.work >= CLOCK_EVERY) this.readClock();
  }

  /** Counts work beyond a step (large data handled at once). */
  private spend(units: number): void {
    this.work += units;
    if (this.work >= CLOCK_EVERY) this.readClock();
  }

  private readClock(): void {
    this.work = 0;
    const slice = performance.now() - this.sliceStart;
    if (this.busyMs + slice > this.limits.maxRunMs) {
      throw new WsLimitError(`The script was stopped after running for ${(this.limits.maxRunMs / 1000).toLocaleString('en')} s (an endless loop?)`);
    }
    if (slice >= SLICE_MS) this.yieldDue = true;
  }

  /** Time this run has held the event loop, in ms. */
  get runMs(): number {
    return this.busyMs + performance.now() - this.sliceStart;
  }

  /** Lets the event loop serve other work (a new slice begins). */
  private async pause(): Promise<void> {
    this.yieldDue = false;
    this.busyMs += performance.now() - this.sliceStart;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
    this.options.checkpoint?.();
  }

  /** Waits for outside work (HTTP, storage): the wait does not count as time on the event loop. */
  async waitFor<T>(work: Promise<T>): Promise<T> {
    this.busyMs += performance.now() - this.sliceStart;
    try {
      return await work;
    } finally {
      this.sliceStart = performance.now();
    }
  }

  /** Counts data created; strings count one unit per 16 characters. */
  charge(units: number): void {
    this.allocation += units;
    if (this.allocation > this.limits.maxAllocation) {
      throw new WsLimitError(`The script created more data than allowed (${this.limits.maxAllocation.toLocaleString('en')} array items or 16-character units)`);
    }
  }

  /** A string the script made: checked against the size cap and counted. */
  str(s: string): string {
    if (s.length > this.limits.maxStringLength) {
      throw new WsLimitError(`A string may be at most ${this.limits.maxStringLength.toLocaleString('en')} characters long`);
    }
    if (s.length > 64) this.charge(s.length / 16);
    return s;
  }

  /** A value a library function returned: strings and arrays are checked and counted. */
  private measure(v: Value): Value {
    this.spend(dataUnits(v));
    if (typeof v === 'string') return this.str(v);
    if (v instanceof WsArray) this.charge(v.size);
    return v;
  }

  // ---- errors -------------------------------------------------------------------------------

  /** Gives an error the position it surfaced at (the innermost one wins). */
  private locate(e: unknown, pos: Position): unknown {
    if (e instanceof WsRuntimeError) return e.pos ? e : e.at({ line: pos.line, col: pos.col });
    if (e instanceof Halt || e instanceof WsSyntaxError) return e;
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      return new WsLimitError('The script is nested too deeply (recursion or nested data)', { line: pos.line, col: pos.col });
    }
    return new WsRuntimeError(e instanceof Error ? e.message : String(e), { line: pos.line, col: pos.col });
  }

  // ---- statements ---------------------------------------------------------------------------

  private async execBlock(body: Stmt[], s: Scope): Promise<Completion> {
    for (const st of body) {
      const r = await this.exec(st, s);
      if (r !== NORMAL) return r;
    }
    return NORMAL;
  }

  private async exec(st: Stmt, s: Scope): Promise<Completion> {
    if (this.yieldDue) await this.pause();
    this.tick();
    try {
      switch (st.kind) {
        case 'expr':
          this.lastValue = st.expr.sync ? this.evalSync(st.expr, s) : await this.evalAsync(st.expr, s);
          return NORMAL;
        case 'if': {
          const t = st.test.sync ? this.evalSync(st.test, s) : await this.evalAsync(st.test, s);
          if (isTruthy(t)) return await this.execBlock(st.then, s);
          return st.else ? await this.execBlock(st.else, s) : NORMAL;
        }
        case 'while':
          for (;;) {
            if (this.yieldDue) await this.pause();
            this.tick();
            const t = st.test.sync ? this.evalSync(st.test, s) : await this.evalAsync(st.test, s);
            if (!isTruthy(t)) return NORMAL;
            const r = await this.execBlock(st.body, s);
            if (r === BREAK) return NORMAL;
            if (r === RETURN) return r;
          }
        case 'for': {
          if (st.init) await this.evalAsync(st.init, s);
          for (;;) {
            if (this.yieldDue) await this.pause();
            this.tick();
            if (st.test && !isTruthy(await this.evalAsync(st.test, s))) return NORMAL;
            const r = await this.execBlock(st.body, s);
            if (r === BREAK) return NORMAL;
            if (r === RETURN) return r;
            if (st.update) await this.evalAsync(st.update, s);
          }
        }
        case 'forin': {
          const it = st.iterable.sync ? this.evalSync(st.iterable, s) : await this.evalAsync(st.iterable, s);
          let entries: Array<[number | string, Value]>;
          if (it instanceof WsArray) entries = [...it.map];
          else if (typeof it === 'string') entries = Array.from(it, (c, i) => [i, c]);
          else throw new WsRuntimeError(`Cannot loop over ${typeName(it)}: for (... in ...) takes an array or a string`);
          for (const [k, v] of entries) {
            if (this.yieldDue) await this.pause();
            this.tick();
            if (st.key !== null) s.set(st.key, k);
            s.set(st.value, v);
            const r = await this.execBlock(st.body, s);
            if (r === BREAK) break;
            if (r === RETURN) return r;
          }
          return NORMAL;
        }
        case 'return':
          this.returnValue = st.value ? (st.value.sync ? this.evalSync(st.value, s) : await this.evalAsync(st.value, s)) : null;
          return RETURN;
        case 'break':
          return BREAK;
        case 'continue':
          return CONTINUE;
        case 'function':
          s.set(st.func.name!, this.closure(st.func, s));
          return NORMAL;
        case 'block':
          return await this.execBlock(st.body, s);
      }
    } catch (e) {
      throw this.locate(e, st);
    }
  }

  // ---- expressions --------------------------------------------------------------------------

  private closure(node: FuncNode, s: Scope): WsFunction {
    return new WsFunction(node.name ?? 'anonymous', node, s, null);
  }

  private ev(n: Expr, s: Scope): Value | Promise<Value> {
    return n.sync ? this.evalSync(n, s) : this.evalAsync(n, s);
  }

  /** Evaluates an expression that holds no call. */
  evalSync(n: Expr, s: Scope): Value {
    this.tick();
    try {
      switch (n.kind) {
        case 'num':
          return n.value;
        case 'str':
          return n.value;
        case 'const':
          return n.value;
        case 'regex':
          return this.regex(n);
        case 'ident':
          return this.variable(n.name, s);
        case 'func':
          return this.closure(n, s);
        case 'array': {
          const a = new WsArray();
          for (const item of n.items) this.arrayItem(a, item.key ? this.evalSync(item.key, s) : undefined, this.evalSync(item.value, s));
          return a;
        }
        case 'unary':
          return this.unary(n, this.evalSync(n.arg, s));
        case 'binary':
          return this.binary(n, this.evalSync(n.left, s), this.evalSync(n.right, s));
        case 'logical': {
          const l = isTruthy(this.evalSync(n.left, s));
          if (n.op === 'and' ? !l : l) return l;
          return isTruthy(this.evalSync(n.right, s));
        }
        case 'compare': {
          let left = this.evalSync(n.operands[0], s);
          for (let i = 0; i < n.ops.length; i++) {
            const right = this.evalSync(n.operands[i + 1], s);
            if (!this.compare(n, i, left, right)) return false;
            left = right;
          }
          return true;
        }
        case 'range':
          return this.range(n, this.evalSync(n.from, s), n.step ? this.evalSync(n.step, s) : 1, this.evalSync(n.to, s));
        case 'index':
          return this.index(n, this.evalSync(n.object, s), this.evalSync(n.index, s));
        case 'assign':
          if (n.target.kind !== 'ident') break;
          return this.assignVar(n, s, this.evalSync(n.value, s));
      }
      throw new Error(`internal: ${n.kind} evaluated synchronously`);
    } catch (e) {
      throw this.locate(e, n);
    }
  }

  private async evalAsync(n: Expr, s: Scope): Promise<Value> {
    if (n.sync) return this.evalSync(n, s);
    this.tick();
    try {
      switch (n.kind) {
        case 'array': {
          const a = new WsArray();
          for (const item of n.items) {
            const key = item.key ? await this.ev(item.key, s) : undefined;
            this.arrayItem(a, key, await this.ev(item.value, s));
          }
          return a;
        }
        case 'unary':
          return this.unary(n, await this.ev(n.arg, s));
        case 'binary': {
          const l = await this.ev(n.left, s);
          return this.binary(n, l, await this.ev(n.right, s));
        }
        case 'logical': {
          const l = isTruthy(await this.ev(n.left, s));
          if (n.op === 'and' ? !l : l) return l;
          return isTruthy(await this.ev(n.right, s));
        }
        case 'compare': {
          let left = await this.ev(n.operands[0], s);
          for (let i = 0; i < n.ops.length; i++) {
            const right = await this.ev(n.operands[i + 1], s);
            if (!this.compare(n, i, left, right)) return false;
            left = right;
          }
          return true;
        }
        case 'range': {
          const from = await this.ev(n.from, s);
          const step = n.step ? await this.ev(n.step, s) : 1;
          return this.range(n, from, step, await this.ev(n.to, s));
        }
        case 'index': {
          const o = await this.ev(n.object, s);
          return this.index(n, o, await this.ev(n.index, s));
        }
        case 'assign':
          return await this.assign(n, s);
        case 'call': {
          const args: Value[] = [];
          for (const a of n.args) args.push(await this.ev(a, s));
          let fn: WsFunction;
          if (n.callee.kind === 'ident') fn = this.named(n.callee.name, args, s);
          else {
            const c = await this.ev(n.callee, s);
            if (!(c instanceof WsFunction)) throw new WsRuntimeError(`Cannot call ${typeName(c)}: it is not a function`);
            fn = c;
          }
          return await this.call(fn, args, s);
        }
        case 'method': {
          const self = await this.ev(n.object, s);
          const args: Value[] = [self];
          for (const a of n.args) args.push(await this.ev(a, s));
          return await this.call(this.method(n.name, self, s), args, s);
        }
      }
      throw new Error(`internal: ${n.kind} evaluated asynchronously`);
    } catch (e) {
      throw this.locate(e, n);
    }
  }

  private regex(n: Expr & { kind: 'regex' }): WsRegex {
    let r = this.regexes.get(n);
    if (!r) {
      r = new WsRegex(n.source);
      this.regexes.set(n, r);
    }
    return r;
  }

  private variable(name: string, s: Scope): Value {
    const v = s.lookup(name);
    if (v !== undefined) return v;
    const native = this.options.builtins.get(name);
    if (native) return new WsFunction(name, null, null, native);
    throw new WsRuntimeError(`Undefined variable "${name}"`);
  }

  private arrayItem(a: WsArray, key: Value | undefined, value: Value): void {
    this.charge(1);
    if (key === undefined) a.push(value);
    else a.set(normKey(key), value);
  }

  private unary(n: UnaryNode, v: Value): Value {
    if (n.op === '!') return !isTruthy(v);
    if (typeof v !== 'number') throw new WsRuntimeError(`Cannot use unary "${n.op}" with '${typeName(v)}'`);
    return n.op === '-' ? -v : v;
  }

  binary(n: Pick<BinaryNode, 'op'>, l: Value, r: Value): Value {
    const op = n.op;
    if (typeof l === 'number' && typeof r === 'number') {
      switch (op) {
        case '+':
          return l + r;
        case '-':
          return l - r;
        case '*':
          return l * r;
        case '/':
          if (r === 0) throw new WsRuntimeError('Division by zero');
          return l / r;
        case '%':
          if (r === 0) throw new WsRuntimeError('Modulo by zero');
          return l % r;
      }
    }
    this.spend(dataUnits(l) + dataUnits(r));
    if (typeof l === 'string' && typeof r === 'string') {
      if (op === '+') return this.str(l + r);
      if (op === '-') return r === '' ? l : l.split(r).join('');
    }
    if (typeof l === 'string' && r instanceof WsRegex && op === '-') {
      const re = r.re.global ? r.re : new RegExp(r.re.source, r.re.flags + 'g');
      return this.replace(re, l, '');
    }
    if (op === '*' && ((typeof l === 'string' && typeof r === 'number') || (typeof l === 'number' && typeof r === 'string'))) {
      const [text, count] = typeof l === 'string' ? [l, r as number] : [r as string, l];
      if (!Number.isInteger(count) || count < 0) throw new WsRuntimeError(`A string can only be repeated a whole, positive number of times (not ${numberText(count)})`);
      if (text.length * count > this.limits.maxStringLength) this.str('x'.repeat(this.limits.maxStringLength + 1));
      return this.str(text.repeat(count));
    }
    throw new WsRuntimeError(`Cannot use operator '${op}' with '${typeName(l)}' and '${typeName(r)}'`);
  }

  private compare(n: CompareNode, i: number, l: Value, r: Value): boolean {
    this.spend(dataUnits(l) + dataUnits(r));
    switch (n.ops[i]) {
      case '==':
        return looseEquals(l, r, this.match);
      case '!=':
        return !looseEquals(l, r, this.match);
      case '<':
        return order(l, r) < 0;
      case '>':
        return order(l, r) > 0;
      case '<=':
        return order(l, r) <= 0;
      case '>=':
        return order(l, r) >= 0;
    }
  }

  private range(_n: RangeNode, from: Value, step: Value, to: Value): WsArray {
    if (typeof from !== 'number' || typeof to !== 'number' || typeof step !== 'number') {
      throw new WsRuntimeError(`A range takes numbers (got ${typeName(from)}..${typeName(to)})`);
    }
    if (!(step > 0)) throw new WsRuntimeError(`The step of a range must be positive (got ${numberText(step)})`);
    const count = Math.floor(Math.abs(to - from) / step) + 1;
    if (!Number.isFinite(count) || count > MAX_ARRAY_ITEMS) throw new WsLimitError(`A range may have at most ${MAX_ARRAY_ITEMS} items`);
    this.charge(count);
    const dir = to >= from ? 1 : -1;
    const a = new WsArray();
    for (let i = 0; i < count; i++) a.push(from + dir * i * step);
    return a;
  }

  index(_n: IndexNode | null, o: Value, k: Value): Value {
    if (o instanceof WsArray) return o.get(normKey(k)) ?? null;
    if (typeof o === 'string') {
      this.spend(dataUnits(o));
      if (typeof k !== 'number' || !Number.isInteger(k)) throw new WsRuntimeError(`A string is indexed by a whole number, not ${typeName(k)}`);
      return charAt(o, k);
    }
    if (o === null) return null;
    throw new WsRuntimeError(`Cannot index ${typeName(o)}`);
  }

  private assignVar(n: AssignNode, s: Scope, value: Value): Value {
    const name = (n.target as { name: string }).name;
    if (n.op !== '=') {
      const cur = s.lookup(name);
      if (cur === undefined) throw new WsRuntimeError(`Undefined variable "${name}"`);
      value = this.binary({ op: n.op[0] as BinaryNode['op'] }, cur, value);
    }
    s.set(name, value);
    return value;
  }

  /** The array an index target writes into, creating missing (or null) arrays on the way. */
  private async container(e: Expr, s: Scope): Promise<WsArray> {
    if (e.kind === 'ident') {
      const v = s.lookup(e.name);
      if (v === undefined || v === null) {
        const a = new WsArray();
        s.set(e.name, a);
        return a;
      }
      if (v instanceof WsArray) return v;
      throw new WsRuntimeError(`Cannot set an index of ${typeName(v)} "${e.name}"`);
    }
    if (e.kind === 'index') {
      const parent = await this.container(e.object, s);
      const key = normKey(await this.ev(e.index, s));
      const v = parent.get(key);
      if (v === undefined || v === null) {
        const a = new WsArray();
        this.charge(1);
        parent.set(key, a);
        return a;
      }
      if (v instanceof WsArray) return v;
      throw new WsRuntimeError(`Cannot set an index of ${typeName(v)}`);
    }
    const v = await this.ev(e, s);
    if (v instanceof WsArray) return v;
    throw new WsRuntimeError(`Cannot set an index of ${typeName(v)}`);
  }

  private async assign(n: AssignNode, s: Scope): Promise<Value> {
    const t = n.target;
    if (t.kind === 'ident') return this.assignVar(n, s, await this.ev(n.value, s));
    const target = await this.container(t.object, s);
    if (t.kind === 'append') {
      const value = await this.ev(n.value, s);
      this.charge(1);
      target.push(value);
      return value;
    }
    const key = normKey(await this.ev(t.index, s));
    let value = await this.ev(n.value, s);
    if (n.op !== '=') {
      const cur = target.get(key);
      if (cur === undefined) throw new WsRuntimeError(`Undefined index ${JSON.stringify(key)}`);
      value = this.binary({ op: n.op[0] as BinaryNode['op'] }, cur, value);
    }
    if (!target.has(key)) this.charge(1);
    target.set(key, value);
    return value;
  }

  // ---- calls --------------------------------------------------------------------------------

  /** `name(args)`: a script function, a library function, or `<type of first arg>_name`. */
  private named(name: string, args: Value[], s: Scope): WsFunction {
    const v = s.lookup(name);
    if (v instanceof WsFunction) return v;
    const native = this.options.builtins.get(name);
    if (native) return new WsFunction(name, null, null, native);
    if (args.length) {
      const typed = `${typeName(args[0])}_${name}`;
      const t = s.lookup(typed);
      if (t instanceof WsFunction) return t;
      const tn = this.options.builtins.get(typed);
      if (tn) return new WsFunction(typed, null, null, tn);
    }
    if (v !== undefined) throw new WsRuntimeError(`"${name}" is ${typeName(v) === 'array' ? 'an' : 'a'} ${typeName(v)}, not a function`);
    throw new WsRuntimeError(`Undefined function "${name}"`);
  }

  /** `value.name(args)`: `<type>_name` first, then `name` (uniform function call syntax). */
  private method(name: string, self: Value, s: Scope): WsFunction {
    const typed = `${typeName(self)}_${name}`;
    for (const candidate of [typed, name]) {
      const v = s.lookup(candidate);
      if (v instanceof WsFunction) return v;
      const native = this.options.builtins.get(candidate);
      if (native) return new WsFunction(candidate, null, null, native);
    }
    throw new WsRuntimeError(`Undefined function "${name}" for ${typeName(self)} (there is no ${typed}() or ${name}())`);
  }

  /** Calls a function value (a script function or a library function). */
  async call(fn: WsFunction, args: Value[], caller: Scope = this.global): Promise<Value> {
    if (++this.depth > this.limits.maxDepth) {
      this.depth--;
      throw new WsLimitError(`Too much recursion: more than ${this.limits.maxDepth} nested function calls`);
    }
    try {
      if (this.yieldDue) await this.pause();
      if (fn.native) {
        const info: CallInfo = {
          name: fn.name,
          invoke: (f, a) => this.call(f, a, caller),
          run: (code) => this.runCode(code, caller),
        };
        try {
          for (const a of args) this.spend(dataUnits(a));
          const r = fn.native(info, args);
          return this.measure(r instanceof Promise ? await r : r);
        } catch (e) {
          if (e instanceof Halt || e instanceof WsLimitError || (e instanceof WsRuntimeError && e.pos)) throw e;
          const detail = e instanceof WsRuntimeError ? e.detail : e instanceof Error ? e.message : String(e);
          throw new WsRuntimeError(`${fn.name}(): ${detail}`);
        }
      }
      const node = fn.node!;
      const scope = new Scope(fn.closure);
      for (let i = 0; i < node.params.length; i++) {
        const p = node.params[i];
        let v = i < args.length ? args[i] : undefined;
        if (v === undefined) v = p.default ? await this.ev(p.default, scope) : null;
        scope.set(p.name, v);
      }
      if (node.expr) return await this.ev(node.expr, scope);
      const r = await this.execBlock(node.body, scope);
      if (r === RETURN) {
        const v = this.returnValue;
        this.returnValue = null;
        return v;
      }
      return null;
    } finally {
      this.depth--;
    }
  }

  private async runCode(code: string, scope: Scope): Promise<Value> {
    const saved = this.lastValue;
    try {
      return await this.runIn(parse(code), scope);
    } finally {
      this.lastValue = saved;
    }
  }
}
