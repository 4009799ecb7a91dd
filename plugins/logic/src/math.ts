// Math mode of Set Variable. mathjs only parses; this file evaluates the tree itself, accepting
// just the operators and functions the docs list, so no mathjs feature (assignment, import,
// units, matrices, evaluate) is reachable from a request.
import { lazyImport } from '@capture/sdk/async';

type Value = number | string | Value[];

interface MathNode {
  type: string;
  value?: unknown;
  name?: string;
  fn?: string | MathNode;
  args?: MathNode[];
  content?: MathNode;
  items?: MathNode[];
}

const MAX_EXPRESSION = 10_000;

// mathjs is the largest package here (about 80 MB resident once imported, and close to a second of
// the event loop on a busy machine): it is loaded by the first math expression, not at start-up or
// in the background, so a service that never computes one does not hold it.
const loadParser = lazyImport(() => import('mathjs').then((m) => m.parse as unknown as (e: string) => MathNode));
async function parse(expr: string): Promise<MathNode> {
  return (await loadParser())(expr);
}

const num = (v: Value, what = 'value'): number => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  throw new Error(`${what} ${JSON.stringify(v)} is not a number`);
};
/** A function's arguments, or the items of its one array argument: `avg(1, 2)` = `avg([1, 2])`. */
const list = (args: Value[]): number[] => (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v) => num(v));
const bool = (b: boolean) => (b ? 1 : 0);

/** Half away from zero, as PHP rounds. */
function round(x: number, precision = 0): number {
  const f = 10 ** precision;
  return (Math.sign(x) * Math.round(Math.abs(x) * f + Number.EPSILON)) / f;
}

function median(xs: number[]): number {
  if (!xs.length) throw new Error('median() needs at least one number');
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const nonEmpty = (xs: number[], fn: string) => {
  if (!xs.length) throw new Error(`${fn}() needs at least one number`);
  return xs;
};

const base = (radix: number, name: string) => (v: Value) => {
  const s = String(v).trim();
  const n = parseInt(s, radix);
  if (Number.isNaN(n)) throw new Error(`${name}() got ${JSON.stringify(s)}`);
  return n;
};

const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  abs: (x) => Math.abs(num(x)),
  acos: (x) => Math.acos(num(x)),
  acosh: (x) => Math.acosh(num(x)),
  asin: (x) => Math.asin(num(x)),
  atan: (x) => Math.atan(num(x)),
  atan2: (y, x) => Math.atan2(num(y), num(x)),
  atanh: (x) => Math.atanh(num(x)),
  arcsec: (x) => Math.acos(1 / num(x)),
  arccsc: (x) => Math.asin(1 / num(x)),
  arccot: (x) => Math.PI / 2 - Math.atan(num(x)),
  array: (...xs) => xs,
  avg: (...xs) => {
    const l = nonEmpty(list(xs), 'avg');
    return l.reduce((a, b) => a + b, 0) / l.length;
  },
  bindec: base(2, 'bindec'),
  octdec: base(8, 'octdec'),
  hexdec: base(16, 'hexdec'),
  decbin: (x) => Math.trunc(num(x)).toString(2),
  decoct: (x) => Math.trunc(num(x)).toString(8),
  dechex: (x) => Math.trunc(num(x)).toString(16),
  ceil: (x) => Math.ceil(num(x)),
  floor: (x) => Math.floor(num(x)),
  cos: (x) => Math.cos(num(x)),
  cosh: (x) => Math.cosh(num(x)),
  sin: (x) => Math.sin(num(x)),
  sinh: (x) => Math.sinh(num(x)),
  tan: (x) => Math.tan(num(x)),
  tanh: (x) => Math.tanh(num(x)),
  sec: (x) => 1 / Math.cos(num(x)),
  csc: (x) => 1 / Math.sin(num(x)),
  cot: (x) => 1 / Math.tan(num(x)),
  deg2rad: (x) => (num(x) * Math.PI) / 180,
  rad2deg: (x) => (num(x) * 180) / Math.PI,
  exp: (x) => Math.exp(num(x)),
  expm1: (x) => Math.expm1(num(x)),
  log: (x, b) => (b === undefined ? Math.log(num(x)) : Math.log(num(x)) / Math.log(num(b))),
  log10: (x) => Math.log10(num(x)),
  log1p: (x) => Math.log1p(num(x)),
  fmod: (a, b) => num(a) % num(b),
  intdiv: (a, b) => {
    if (num(b) === 0) throw new Error('Division by zero');
    return Math.trunc(num(a) / num(b));
  },
  hypot: (...xs) => Math.hypot(...list(xs)),
  max: (...xs) => Math.max(...nonEmpty(list(xs), 'max')),
  min: (...xs) => Math.min(...nonEmpty(list(xs), 'min')),
  median: (...xs) => median(list(xs)),
  pi: () => Math.PI,
  pow: (a, b) => num(a) ** num(b),
  round: (x, p) => round(num(x), p === undefined ? 0 : num(p)),
  sqrt: (x) => Math.sqrt(num(x)),
};
// The docs' other spellings of the same functions.
const ALIASES: Record<string, string> = {
  arccos: 'acos',
  arcsin: 'asin',
  arctan: 'atan',
  arctg: 'atan',
  atn: 'atan',
  arccosec: 'arccsc',
  arccotan: 'arccot',
  arcctg: 'arccot',
  cosec: 'csc',
  cotan: 'cot',
  cotg: 'cot',
  ctg: 'cot',
  ctn: 'cot',
  tg: 'tan',
  tn: 'tan',
  ln: 'log',
  lg: 'log10',
};
export const FUNCTION_NAMES = [...Object.keys(FUNCTIONS), ...Object.keys(ALIASES), 'if'].sort();

const CONSTANTS: Record<string, number> = { $pi: Math.PI, $e: Math.E, pi: Math.PI, e: Math.E };

const OPERATORS: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  subtract: (a, b) => a - b,
  multiply: (a, b) => a * b,
  divide: (a, b) => {
    if (b === 0) throw new Error('Division by zero');
    return a / b;
  },
  // PHP's %: the sign of the dividend (mathjs's mod would floor).
  mod: (a, b) => {
    if (b === 0) throw new Error('Modulo by zero');
    return a % b;
  },
  pow: (a, b) => a ** b,
  equal: (a, b) => bool(a === b),
  unequal: (a, b) => bool(a !== b),
  smaller: (a, b) => bool(a < b),
  larger: (a, b) => bool(a > b),
  smallerEq: (a, b) => bool(a <= b),
  largerEq: (a, b) => bool(a >= b),
  and: (a, b) => bool(!!a && !!b),
  or: (a, b) => bool(!!a || !!b),
};

function evaluate(node: MathNode): Value {
  switch (node.type) {
    case 'ConstantNode': {
      const v = node.value;
      if (typeof v === 'number' || typeof v === 'string') return v;
      if (typeof v === 'boolean') return bool(v);
      break;
    }
    case 'SymbolNode': {
      const c = CONSTANTS[node.name ?? ''];
      if (c === undefined) throw new Error(`Unknown variable ${node.name}`);
      return c;
    }
    case 'ParenthesisNode':
      return evaluate(node.content!);
    case 'ArrayNode':
      return node.items!.map(evaluate);
    case 'OperatorNode': {
      const fn = node.fn as string;
      const args = node.args!;
      if (fn === 'unaryMinus') return -num(evaluate(args[0]));
      if (fn === 'unaryPlus') return num(evaluate(args[0]));
      if (fn === 'not') return bool(!num(evaluate(args[0])));
      const op = OPERATORS[fn];
      if (op && args.length === 2) return op(num(evaluate(args[0])), num(evaluate(args[1])));
      break;
    }
    case 'FunctionNode': {
      const name = (node.fn as MathNode).type === 'SymbolNode' ? (node.fn as MathNode).name! : '';
      const args = node.args!;
      // if() evaluates only the branch it picks.
      if (name === 'if') {
        if (args.length !== 3) throw new Error('if() takes a condition and two values');
        return num(evaluate(args[0])) ? evaluate(args[1]) : evaluate(args[2]);
      }
      const fn = FUNCTIONS[ALIASES[name] ?? name];
      if (!fn) throw new Error(`Unknown function ${name || '(expression)'}()`);
      return fn(...args.map(evaluate));
    }
  }
  throw new Error(`Unsupported expression: ${node.type === 'OperatorNode' ? `operator ${String(node.fn)}` : node.type}`);
}

/** The docs' logical operators in mathjs spelling: && -> and, || -> or, prefix ! -> not. */
function toMathjs(expr: string): string {
  return expr
    .replace(/&&/g, ' and ')
    .replace(/\|\|/g, ' or ')
    .replace(/!(?!=)/g, ' not ');
}

function format(v: Value): string {
  if (Array.isArray(v)) return JSON.stringify(v.map((x) => (typeof x === 'number' ? Number(format(x)) : x)));
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) throw new Error('The result is not a finite number');
  if (Number.isInteger(v)) return String(v);
  // 14 significant digits, as PHP prints floats: 0.1 + 0.2 is 0.3.
  return String(parseFloat(v.toPrecision(14)));
}

export async function calculate(expression: string): Promise<string> {
  if (expression.length > MAX_EXPRESSION) throw new Error('The expression is too long');
  let tree: MathNode;
  try {
    tree = await parse(toMathjs(expression));
  } catch (e) {
    throw new Error(`Invalid math expression: ${(e as Error).message}`);
  }
  return format(evaluate(tree));
}
