// What the library functions work with: the action's context (variables, response, services),
// the output, and argument helpers that give clear messages.
import type { ActionContext } from '@capture/sdk';
import { WsRuntimeError, fail } from '../lang/errors.js';
import type { Limits } from '../lang/limits.js';
import { WsArray, WsFunction, WsRegex, numericValue, toText, typeName, type NativeFn, type Value } from '../lang/values.js';

export type ScriptContext = Pick<ActionContext, 'vars' | 'response' | 'log' | 'stop' | 'dontSave' | 'services' | 'signal' | 'timeLeftMs' | 'request' | 'rawBody' | 'runAction' | 'later'>;

export interface Host {
  ctx: ScriptContext;
  limits: Limits;
  /** Adds a line to the action output (capped by limits.maxOutputLines and maxOutputBytes). */
  output(line: string): void;
  /** Waits for outside work (HTTP, storage); the wait does not count against limits.maxRunMs. */
  wait<T>(work: Promise<T>): Promise<T>;
  /** Counts an outgoing HTTP request against limits.maxHttpRequests. */
  countRequest(): void;
}

export type Library = Record<string, NativeFn>;

const ORDINAL = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh'];
const nth = (i: number) => `the ${ORDINAL[i] ?? `${i + 1}th`} argument`;

/** The argument, null when missing. */
export const arg = (args: Value[], i: number): Value => args[i] ?? null;

export function argFail(i: number, expected: string, got: Value): never {
  throw new WsRuntimeError(`${nth(i)} must be ${expected}, not ${typeName(got)}`);
}

/** A string (numbers and bools are written out). */
export function str(args: Value[], i: number): string {
  const v = args[i];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return toText(v);
  if (v === undefined || v === null) throw new WsRuntimeError(`${nth(i)} (a string) is missing`);
  return argFail(i, 'a string', v);
}

export function optStr(args: Value[], i: number, dflt: string): string;
export function optStr(args: Value[], i: number): string | null;
export function optStr(args: Value[], i: number, dflt: string | null = null): string | null {
  const v = args[i];
  return v === undefined || v === null ? dflt : str(args, i);
}

/** A number (numeric strings are accepted, since variables are text). */
export function num(args: Value[], i: number): number {
  const v = args[i];
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = numericValue(v);
    if (n !== null) return n;
    throw new WsRuntimeError(`${nth(i)} must be a number, not the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`);
  }
  if (v === undefined || v === null) throw new WsRuntimeError(`${nth(i)} (a number) is missing`);
  return argFail(i, 'a number', v);
}

export function optNum(args: Value[], i: number, dflt: number): number;
export function optNum(args: Value[], i: number): number | null;
export function optNum(args: Value[], i: number, dflt: number | null = null): number | null {
  const v = args[i];
  return v === undefined || v === null ? dflt : num(args, i);
}

export function int(args: Value[], i: number): number {
  const n = num(args, i);
  if (!Number.isFinite(n)) fail(`${nth(i)} must be a finite number`);
  return Math.trunc(n);
}

export function optInt(args: Value[], i: number, dflt: number): number;
export function optInt(args: Value[], i: number): number | null;
export function optInt(args: Value[], i: number, dflt: number | null = null): number | null {
  const v = args[i];
  return v === undefined || v === null ? dflt : int(args, i);
}

export function arr(args: Value[], i: number): WsArray {
  const v = args[i];
  if (v instanceof WsArray) return v;
  if (v === undefined) throw new WsRuntimeError(`${nth(i)} (an array) is missing`);
  return argFail(i, 'an array', v);
}

export function fn(args: Value[], i: number): WsFunction {
  const v = args[i];
  if (v instanceof WsFunction) return v;
  if (v === undefined) throw new WsRuntimeError(`${nth(i)} (a function) is missing`);
  return argFail(i, 'a function', v);
}

export function bool(args: Value[], i: number, dflt = false): boolean {
  const v = args[i];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return !['', '0', 'false', 'off', 'no'].includes(v.trim().toLowerCase());
  return argFail(i, 'a bool', v);
}

/** A regex value, or a string taken as a pattern (`/pattern/flags` or bare). */
export function regex(args: Value[], i: number, toRegex: (s: string) => WsRegex): WsRegex {
  const v = args[i];
  if (v instanceof WsRegex) return v;
  if (typeof v === 'string') return toRegex(v);
  if (v === undefined) throw new WsRuntimeError(`${nth(i)} (a regex) is missing`);
  return argFail(i, 'a regex', v);
}

/** Headers given as `["Name: value"]` or `["Name": "value"]`. */
export function headerPairs(v: Value): Array<[string, string]> {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') v = WsArray.list(v.split(/\r?\n/).filter(Boolean));
  if (!(v instanceof WsArray)) fail(`headers must be an array of "Name: value" strings, not ${typeName(v)}`);
  const out: Array<[string, string]> = [];
  for (const [k, item] of (v as WsArray).map) {
    if (typeof k === 'string') out.push([k, toText(item)]);
    else {
      const line = toText(item);
      const at = line.indexOf(':');
      if (at <= 0) fail(`the header ${JSON.stringify(line)} is not "Name: value"`);
      out.push([line.slice(0, at).trim(), line.slice(at + 1).trim()]);
    }
  }
  return out;
}
