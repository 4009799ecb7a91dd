// `$name$` replacement, the one implementation every action parameter goes through.
//
// - `$name$` is replaced by the variable's value; an unknown name is left as typed (so `$5 and $6`
//   or a stray `$` survive, and a missing variable is visible in the output).
// - Replaced values are never scanned again: a request body containing `$global.secret$` stays text.
// - `\$name\$` is written as the literal `$name$`. A lone `\$` (a regex's escaped dollar) is kept.
// - A name may end in modifiers: `$body.json$`, `$x.base64_encode.url_encode$` (applied left to right).
// - Header lines (parameters declared with the SDK's `headerLines()`) are split into lines first and
//   each line is templated on its own with header-safe values, so a value cannot add a header.

import { bytesText, textBytes } from '../bytes.js';
import { headerSafe, LINE_BREAK } from '../headers.js';
import { deeperThan } from '../parse-limits.js';

export type Resolver = (name: string) => string | undefined;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };
const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export const MODIFIERS: Record<string, (v: string) => string> = {
  // The inside of a JSON string literal: quotes, backslashes and control characters escaped.
  json: (v) => JSON.stringify(v).slice(1, -1),
  json_format: (v) => {
    // Formatting recurses per level: a document deeper than the parse limit is left as it is.
    if (deeperThan(v, 'json') >= 0) return v;
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  },
  html_encode: (v) => v.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]),
  html_decode: (v) =>
    v.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
      if (e[0] === '#') {
        const code = e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return HTML_ENTITIES[e.toLowerCase()] ?? whole;
    }),
  html_strip: (v) => v.replace(/<!--[\s\S]*?-->|<\/?[a-z!][^>]*>/gi, ''),
  // Bytes-aware (../bytes.ts): a generated file encodes as its bytes, and decoding binary
  // base64 gives those bytes back rather than mangled text.
  base64_encode: (v) => textBytes(v).toString('base64'),
  base64_decode: (v) => bytesText(Buffer.from(v, 'base64')),
  // Form encoding as the docs show it: spaces become "+", everything but [A-Za-z0-9-_.] is escaped.
  url_encode: (v) =>
    encodeURIComponent(v)
      .replace(/[!'()*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
      .replace(/%20/g, '+'),
  url_decode: (v) => {
    try {
      return decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      return v;
    }
  },
  upper: (v) => v.toUpperCase(),
  lower: (v) => v.toLowerCase(),
};

const MAX_MODIFIERS = 4;
const NAME = /^[^\s$\\][^$\n]{0,255}$/;

/**
 * Resolves a name that may end in modifiers. The longest name that resolves wins, so a variable
 * literally named `x.upper` beats the modifier.
 */
export function resolveWithModifiers(name: string, lookup: Resolver): string | undefined {
  const direct = lookup(name);
  if (direct !== undefined) return direct;
  const mods: string[] = [];
  let base = name;
  for (let i = 0; i < MAX_MODIFIERS; i++) {
    const dot = base.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const mod = base.slice(dot + 1);
    if (!Object.hasOwn(MODIFIERS, mod)) return undefined;
    mods.unshift(mod);
    base = base.slice(0, dot);
    const value = lookup(base);
    if (value !== undefined) return mods.reduce((v, m) => MODIFIERS[m](v), value);
  }
  return undefined;
}

/** Replaces every `$name$` in `text`. `resolve` should already handle modifiers. */
export function template(text: string, resolve: Resolver): string {
  if (!text.includes('$')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && text[i + 1] === '$') {
      // `\$name\$` -> literal `$name$`.
      const close = text.indexOf('\\$', i + 2);
      const name = close === -1 ? '' : text.slice(i + 2, close);
      if (close !== -1 && NAME.test(name)) {
        out += '$' + name + '$';
        i = close + 2;
        continue;
      }
      out += '\\$';
      i += 2;
      continue;
    }
    if (ch === '$') {
      const close = text.indexOf('$', i + 1);
      if (close === -1) {
        out += text.slice(i);
        break;
      }
      const name = text.slice(i + 1, close);
      const value = NAME.test(name) ? resolve(name) : undefined;
      if (value !== undefined) {
        out += value;
        i = close + 1;
      } else {
        // Not a variable: keep this `$` and let the closing one start the next candidate.
        out += '$';
        i += 1;
      }
      continue;
    }
    const next = text.indexOf('$', i + 1);
    const nextEsc = text.indexOf('\\$', i + 1);
    const stop = Math.min(next === -1 ? text.length : next, nextEsc === -1 ? text.length : nextEsc);
    out += text.slice(i, stop);
    i = stop;
  }
  return out;
}

/**
 * `Name: value` lines with variables replaced line by line. A replaced value's line breaks and
 * control characters become spaces (headerSafe), so it can never start a header of its own.
 */
export function templateHeaderLines(text: string, resolve: Resolver): string {
  if (!text.includes('$')) return text;
  const safe: Resolver = (name) => {
    const value = resolve(name);
    return value === undefined ? undefined : headerSafe(value);
  };
  return text
    .split(LINE_BREAK)
    .map((line) => template(line, safe))
    .join('\n');
}

/** Sets an own property, `__proto__` included (as Object.fromEntries does; `=` would set the prototype). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** A copy of `v` with variables replaced in every string (plain loops: this runs for every action of every capture). */
function templateTree(v: unknown, resolve: Resolver): unknown {
  if (typeof v === 'string') return template(v, resolve);
  if (Array.isArray(v)) return v.map((x) => templateTree(x, resolve));
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) put(out, k, templateTree((v as Record<string, unknown>)[k], resolve));
    return out;
  }
  return v;
}

/**
 * Replaces variables in every string inside `value` (objects and arrays recursively). Top-level
 * keys in `skip` are left as typed; top-level keys in `headerLines` are templated as header lines.
 */
export function templateValue<T>(value: T, resolve: Resolver, skip: readonly string[] = [], headerLines: readonly string[] = []): T {
  if (value && typeof value === 'object' && !Array.isArray(value) && (skip.length || headerLines.length)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const x = (value as Record<string, unknown>)[k];
      put(out, k, skip.includes(k) ? x : headerLines.includes(k) && typeof x === 'string' ? templateHeaderLines(x, resolve) : templateTree(x, resolve));
    }
    return out as T;
  }
  return templateTree(value, resolve) as T;
}
