// math.md.
import { randomInt } from 'node:crypto';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import { WsRuntimeError, fail } from '../lang/errors.js';
import { WsArray, numberText, numericValue, typeName, type Value } from '../lang/values.js';
import { arg, int, num, optInt, str, type Library } from './host.js';

/** PHP's round(): half away from zero, at `precision` decimals. */
export function roundHalfUp(n: number, precision = 0): number {
  if (!Number.isFinite(n)) return n;
  const sign = n < 0 ? -1 : 1;
  const shifted = Number(`${Math.abs(n)}e${precision}`);
  const r = Number(`${Math.round(shifted)}e${-precision}`);
  return Number.isFinite(r) ? sign * r : sign * (Math.round(Math.abs(n) * 10 ** precision) / 10 ** precision);
}

function numbers(args: Value[]): number[] {
  const list = args.length === 1 && args[0] instanceof WsArray ? args[0].values() : args;
  if (!list.length) fail('needs at least one number');
  return list.map((v, i) => (typeof v === 'number' ? v : typeof v === 'string' && numericValue(v) !== null ? numericValue(v)! : fail(`item ${i} is ${typeName(v)}, not a number`)));
}

export function toNumber(v: Value): number {
  if (typeof v === 'number') return v;
  if (v === null) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    if (v.trim() === '') return 0;
    const n = numericValue(v);
    if (n !== null) return n;
    if (/^\s*0x[0-9a-f]+\s*$/i.test(v)) return parseInt(v, 16);
    throw new WsRuntimeError(`${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)} is not a number`);
  }
  throw new WsRuntimeError(`Cannot convert ${typeName(v)} to a number`);
}

export function mathLibrary(): Library {
  const unary = (f: (n: number) => number) => (_c: unknown, a: Value[]) => f(num(a, 0));
  return {
    abs: unary(Math.abs),
    ceil: unary(Math.ceil),
    floor: unary(Math.floor),
    sqrt: unary(Math.sqrt),
    sin: unary(Math.sin),
    cos: unary(Math.cos),
    tan: unary(Math.tan),
    asin: unary(Math.asin),
    acos: unary(Math.acos),
    atan: unary(Math.atan),
    exp: unary(Math.exp),
    log: (_c, a) => (a.length > 1 ? Math.log(num(a, 0)) / Math.log(num(a, 1)) : Math.log(num(a, 0))),
    log10: unary(Math.log10),
    atan2: (_c, a) => Math.atan2(num(a, 0), num(a, 1)),
    pi: () => Math.PI,
    pow: (_c, a) => num(a, 0) ** num(a, 1),
    mod: (_c, a) => {
      const d = num(a, 1);
      if (d === 0) fail('Modulo by zero');
      return num(a, 0) % d;
    },
    round: (_c, a) => roundHalfUp(num(a, 0), optInt(a, 1, 0)),
    max: (_c, a) => Math.max(...numbers(a)),
    min: (_c, a) => Math.min(...numbers(a)),
    rand: (_c, a) => {
      if (!a.length) return randomInt(0, 2 ** 31);
      const lo = int(a, 0);
      const hi = int(a, 1);
      if (hi < lo) fail(`max (${hi}) is less than min (${lo})`);
      return randomInt(lo, hi + 1);
    },
    number_length: (_c, a) => numberText(Math.abs(num(a, 0))).replace('.', '').length,
    is_nan: (_c, a) => Number.isNaN(num(a, 0)),
    to_number: (_c, a) => toNumber(arg(a, 0)),
    bin2hex: (_c, a) => textBytes(str(a, 0)).toString('hex'),
    hex2bin: (_c, a) => {
      const hex = str(a, 0).trim();
      if (hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) return null;
      return bytesText(Buffer.from(hex, 'hex'));
    },
    num2hex: (_c, a) => {
      const n = num(a, 0);
      if (!Number.isInteger(n)) fail('needs a whole number');
      return n < 0 ? '-' + (-n).toString(16) : n.toString(16);
    },
    hex2num: (_c, a) => {
      const hex = str(a, 0).trim().replace(/^0x/i, '');
      if (!/^[0-9a-fA-F]+$/.test(hex)) fail(`${JSON.stringify(hex)} is not hexadecimal`);
      return parseInt(hex, 16);
    },
  };
}
