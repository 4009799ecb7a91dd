// What a leaf (term or range) means, independent of the store: both compilers translate a Matcher,
// so SQLite and Mongo agree on wildcards, number parsing and date spans. The parser calls
// matcherFor() too, so a bad number or date fails when the query is parsed.
import type { QueryNode } from './ast.js';
import { resolveDateSpan } from './datemath.js';
import { QuerySyntaxError, quote } from './errors.js';
import type { FieldSpec } from './fields.js';

export type TermNode = Extract<QueryNode, { kind: 'term' }>;
export type RangeNode = Extract<QueryNode, { kind: 'range' }>;

/** Literal text, `*` (any run of characters) or `?` (exactly one character). */
export type PatternPart = { kind: 'text'; text: string } | { kind: 'many' } | { kind: 'one' };

export type Matcher =
  /** The whole value was an unquoted `*`: the field has a value (same as `_exists_`). */
  | { kind: 'exists' }
  /** Case-insensitive; `anchored` = the whole value must match, else a substring. */
  | { kind: 'pattern'; parts: PatternPart[]; anchored: boolean }
  /** Numbers and dates (epoch ms); null is an open end. */
  | { kind: 'interval'; lo: number | null; loInclusive: boolean; hi: number | null; hiInclusive: boolean };

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export function matcherFor(node: TermNode | RangeNode, spec: FieldSpec, now: number): Matcher {
  if (node.kind === 'range') return rangeMatcher(node, spec, now);

  if (!node.quoted && node.value === '*') return { kind: 'exists' };
  if (node.value === '') throw new QuerySyntaxError(`Empty value for field ${quote(node.field)}`, node.pos);
  switch (spec.match) {
    case 'number': {
      const n = parseNumber(node.value, node.field, node.pos);
      return { kind: 'interval', lo: n, loInclusive: true, hi: n, hiInclusive: true };
    }
    case 'date': {
      // A date term is the whole span of its precision: a day for `2022-01-01`, a second for
      // `2022-01-01 10:00:00`, a millisecond for `now-1h`.
      const span = resolveDateSpan(node.value, now, node.pos);
      return { kind: 'interval', lo: span.start, loInclusive: true, hi: span.end, hiInclusive: false };
    }
    default: {
      const anchored = spec.match === 'exact';
      let parts = toParts(node.value, node.quoted);
      // Only wildcards (`**`): any value, like `*`.
      if (parts.every((p) => p.kind === 'many')) return { kind: 'exists' };
      // A substring search already allows anything around the value.
      if (!anchored) parts = parts.slice(parts[0].kind === 'many' ? 1 : 0, parts.at(-1)?.kind === 'many' ? -1 : undefined);
      return { kind: 'pattern', parts, anchored };
    }
  }
}

function rangeMatcher(node: RangeNode, spec: FieldSpec, now: number): Matcher {
  if (spec.match === 'number') {
    return {
      kind: 'interval',
      lo: node.from === null ? null : parseNumber(node.from, node.field, node.pos),
      loInclusive: node.includeFrom,
      hi: node.to === null ? null : parseNumber(node.to, node.field, node.pos),
      hiInclusive: node.includeTo,
    };
  }
  if (spec.match === 'date') {
    // Bounds are spans: an inclusive start takes the span's start, an exclusive one skips the
    // whole span; an inclusive end includes the whole span, an exclusive one stops before it.
    const from = node.from === null ? null : resolveDateSpan(node.from, now, node.pos);
    const to = node.to === null ? null : resolveDateSpan(node.to, now, node.pos);
    return {
      kind: 'interval',
      lo: from === null ? null : node.includeFrom ? from.start : from.end,
      loInclusive: true,
      hi: to === null ? null : node.includeTo ? to.end : to.start,
      hiInclusive: false,
    };
  }
  throw new QuerySyntaxError(`Field ${quote(node.field)} does not support ranges`, node.pos);
}

function parseNumber(text: string, field: string, position: number): number {
  const n = NUMBER.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n)) throw new QuerySyntaxError(`Invalid number ${quote(text)} for field ${quote(field)}`, position);
  return n;
}

/** Quoted values are literal; in unquoted ones `*` and `?` are wildcards. */
function toParts(value: string, quoted: boolean): PatternPart[] {
  if (quoted) return [{ kind: 'text', text: value }];
  const parts: PatternPart[] = [];
  let text = '';
  for (const ch of value) {
    if (ch !== '*' && ch !== '?') {
      text += ch;
      continue;
    }
    if (text) parts.push({ kind: 'text', text });
    text = '';
    // `**` is the same as `*`; collapsing keeps the SQL and regex patterns short.
    if (ch === '*' && parts.at(-1)?.kind === 'many') continue;
    parts.push(ch === '*' ? { kind: 'many' } : { kind: 'one' });
  }
  if (text) parts.push({ kind: 'text', text });
  return parts;
}
