// Turns source text into tokens. Strings may span lines; `r"..."` is a regex literal (kept raw);
// `//` and `/* */` are comments. Each token records whether a line break came before it, which
// is how statements end without semicolons.
import { WsSyntaxError } from './errors.js';

export type TokenType = 'num' | 'str' | 'regex' | 'ident' | 'keyword' | 'punct' | 'eof';

export interface Token {
  type: TokenType;
  value: string;
  num?: number;
  line: number;
  col: number;
  /** A line break separates this token from the previous one. */
  nl: boolean;
}

export const KEYWORDS = new Set(['if', 'else', 'for', 'in', 'while', 'function', 'return', 'break', 'continue', 'true', 'false', 'null', 'and', 'or']);

// Longest first.
const PUNCTS = ['=>', '==', '!=', '<=', '>=', '&&', '||', '..', '+=', '-=', '*=', '/=', '(', ')', '[', ']', '{', '}', ',', ';', ':', '.', '=', '<', '>', '+', '-', '*', '/', '%', '!'];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', v: '\v', f: '\f', e: '\x1b', '\\': '\\', "'": "'", '"': '"' };

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let nl = true;
  const pos = (at: number) => ({ line, col: at - lineStart + 1 });
  const err = (msg: string, at: number): never => {
    throw new WsSyntaxError(msg, pos(at));
  };
  const newline = (at: number) => {
    line++;
    lineStart = at + 1;
  };

  while (i < src.length) {
    const c = src[i];
    if (c === '\n') {
      newline(i);
      nl = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\uFEFF' || c === '\u00A0') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const start = i;
      i += 2;
      while (i < src.length && !(src[i] === '*' && src[i + 1] === '/')) {
        if (src[i] === '\n') {
          newline(i);
          nl = true;
        }
        i++;
      }
      if (i >= src.length) err('Unterminated comment', start);
      i += 2;
      continue;
    }
    const { line: tl, col: tc } = pos(i);
    const push = (type: TokenType, value: string, extra: Partial<Token> = {}) => {
      tokens.push({ type, value, line: tl, col: tc, nl, ...extra });
      nl = false;
    };

    // Regex literal: r"..." or r'...', raw except for an escaped delimiter.
    if (c === 'r' && (src[i + 1] === '"' || src[i + 1] === "'")) {
      const q = src[i + 1];
      const start = i;
      i += 2;
      let out = '';
      while (i < src.length && src[i] !== q) {
        if (src[i] === '\\' && src[i + 1] === q) {
          out += q;
          i += 2;
          continue;
        }
        if (src[i] === '\\' && i + 1 < src.length) {
          out += src[i] + src[i + 1];
          if (src[i + 1] === '\n') newline(i + 1);
          i += 2;
          continue;
        }
        if (src[i] === '\n') newline(i);
        out += src[i++];
      }
      if (i >= src.length) err('Unterminated regex literal', start);
      i++;
      push('regex', out);
      continue;
    }

    if (c === '"' || c === "'") {
      const start = i;
      i++;
      let out = '';
      while (i < src.length && src[i] !== c) {
        const ch = src[i];
        if (ch === '\\' && i + 1 < src.length) {
          const n = src[i + 1];
          if (n in ESCAPES) {
            out += ESCAPES[n];
            i += 2;
          } else if (n === 'u' && src[i + 2] === '{') {
            const end = src.indexOf('}', i);
            const cp = end > 0 ? parseInt(src.slice(i + 3, end), 16) : NaN;
            if (!Number.isInteger(cp) || cp > 0x10ffff) err('Invalid \\u{...} escape', i);
            out += String.fromCodePoint(cp);
            i = end + 1;
          } else {
            // Unknown escapes keep their backslash (PHP): '\d+' is a regex string.
            out += ch;
            i++;
          }
          continue;
        }
        if (ch === '\n') newline(i);
        out += ch;
        i++;
      }
      if (i >= src.length) err('Unterminated string', start);
      i++;
      push('str', out);
      continue;
    }

    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? '') && src[i - 1] !== '.')) {
      const m = /^(0[xX][0-9a-fA-F]+|0[bB][01]+|(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?)/.exec(src.slice(i, i + 400));
      const text = m![0];
      i += text.length;
      if (/[A-Za-z_]/.test(src[i] ?? '')) err(`Invalid number "${text}${src[i]}"`, i - text.length);
      const value = /^0[bB]/.test(text) ? parseInt(text.slice(2), 2) : Number(text);
      push('num', text, { num: value });
      continue;
    }

    if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i])) i++;
      const word = src.slice(start, i);
      push(KEYWORDS.has(word) ? 'keyword' : 'ident', word);
      continue;
    }

    const p = PUNCTS.find((x) => src.startsWith(x, i));
    if (!p) {
      const ch = String.fromCodePoint(src.codePointAt(i)!);
      err(c === '$' ? `Unexpected "$": variables are read with var('name') and written with set('name', value)` : `Unexpected character ${JSON.stringify(ch)}`, i);
    }
    i += p!.length;
    push('punct', p!);
  }
  tokens.push({ type: 'eof', value: '', ...pos(i), nl: true });
  return tokens;
}
