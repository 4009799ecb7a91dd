// bool.md, plus is_* type checks.
import { WsArray, WsFunction, WsRegex, isTruthy, numericValue } from '../lang/values.js';
import { arg, bool, type Library } from './host.js';

export function boolLibrary(): Library {
  return {
    bool_and: (_c, a) => isTruthy(arg(a, 0)) && isTruthy(arg(a, 1)),
    bool_or: (_c, a) => isTruthy(arg(a, 0)) || isTruthy(arg(a, 1)),
    bool_xor: (_c, a) => isTruthy(arg(a, 0)) !== isTruthy(arg(a, 1)),
    bool_not: (_c, a) => !isTruthy(arg(a, 0)),
    is_empty: (_c, a) => {
      const v = arg(a, 0);
      return v === null || v === '' || (v instanceof WsArray && v.size === 0);
    },
    is_null: (_c, a) => arg(a, 0) === null,
    is_bool: (_c, a) => typeof arg(a, 0) === 'boolean',
    is_string: (_c, a) => typeof arg(a, 0) === 'string',
    is_number: (_c, a) => typeof arg(a, 0) === 'number',
    is_array: (_c, a) => arg(a, 0) instanceof WsArray,
    is_regex: (_c, a) => arg(a, 0) instanceof WsRegex,
    is_function: (_c, a) => arg(a, 0) instanceof WsFunction,
    is_numeric: (_c, a) => {
      const v = arg(a, 0);
      return typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && numericValue(v) !== null;
    },
    /** Strings "", "0", "false", "off" and "no" are false (variables are text); arrays by size. */
    to_bool: (_c, a) => {
      const v = arg(a, 0);
      return typeof v === 'string' || typeof v === 'number' ? bool(a, 0) : isTruthy(v);
    },
  };
}
