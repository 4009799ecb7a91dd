// The comparison operators of the Conditions action, shared with Map Text.
import { parseRegex, regexTest } from './regex.js';

export const VALUE_OPERATORS = ['eq', 'neq', 'sw', 'ew', 'ct', 'nct', 'gt', 'gte', 'lt', 'lte', 'regex'] as const;
export const UNARY_OPERATORS = ['ex', 'null', 'nnull', 'true', 'false', 'num', 'int', 'float', 'json', 'email', 'domain', 'url'] as const;
export const OPERATORS = [...VALUE_OPERATORS, ...UNARY_OPERATORS] as const;
export type Operator = (typeof OPERATORS)[number];
export type ValueOperator = (typeof VALUE_OPERATORS)[number];

export const OPERATOR_LABELS: Record<Operator, string> = {
  eq: 'is equal to',
  neq: 'is not equal to',
  sw: 'starts with',
  ew: 'ends with',
  ct: 'contains',
  nct: 'does not contain',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  lt: 'is less than',
  lte: 'is less than or equal to',
  regex: 'matches regex',
  ex: 'exists',
  null: 'is null',
  nnull: 'is not null',
  true: 'is true',
  false: 'is false',
  num: 'is numeric',
  int: 'is integer',
  float: 'is float',
  json: 'is JSON',
  email: 'is an e-mail address',
  domain: 'is a domain',
  url: 'is a URL',
};

const DECIMAL = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
// "Numeric" also takes the hexadecimal, octal and binary literals the docs list (0x539, 02471, 0b101).
const NUMERIC = /^\s*([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO]?[0-7]+)\s*$/;
const INTEGER = /^\s*[+-]?\d+\s*$/;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/i;

export const isNumeric = (v: string) => NUMERIC.test(v);
export const isDecimal = (v: string) => DECIMAL.test(v);

function isJson(v: string): boolean {
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}

function isUrl(v: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v.trim())) return false;
  try {
    return !!new URL(v.trim()).host;
  } catch {
    return false;
  }
}

/** Numbers compare as numbers when both sides are decimal numbers, else as text. */
function order(a: string, b: string): number {
  if (isDecimal(a) && isDecimal(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Variables are text: a JSON null arrives empty, or as the word `null` when typed so. */
const isNullText = (v: string) => v === '' || v.trim().toLowerCase() === 'null';

/**
 * Applies `operator` to `input` (and `value` for the operators that take one). `ex`, `null` and
 * `nnull` are decided by the caller, which knows the variables; here they look at the text only.
 */
export function compare(operator: Operator, input: string, value = ''): boolean {
  switch (operator) {
    case 'eq':
      return input === value;
    case 'neq':
      return input !== value;
    case 'sw':
      return input.startsWith(value);
    case 'ew':
      return input.endsWith(value);
    case 'ct':
      return input.includes(value);
    case 'nct':
      return !input.includes(value);
    case 'gt':
      return order(input, value) > 0;
    case 'gte':
      return order(input, value) >= 0;
    case 'lt':
      return order(input, value) < 0;
    case 'lte':
      return order(input, value) <= 0;
    case 'regex':
      return regexTest(parseRegex(value), input);
    case 'ex':
      return input !== '';
    case 'null':
      return isNullText(input);
    case 'nnull':
      return !isNullText(input);
    case 'true':
      return ['true', '1', 'yes', 'on'].includes(input.trim().toLowerCase());
    case 'false':
      return ['false', '0', 'no', 'off', ''].includes(input.trim().toLowerCase());
    case 'num':
      return isNumeric(input);
    case 'int':
      return INTEGER.test(input);
    case 'float':
      return DECIMAL.test(input);
    case 'json':
      return isJson(input);
    case 'email':
      return EMAIL.test(input.trim());
    case 'domain':
      return DOMAIN.test(input.trim());
    case 'url':
      return isUrl(input);
  }
}
