// Compiles a query to a MongoDB filter with the same meaning as sql.ts. Safety: every key in the
// filter is either one of our operators or a path from fields.ts (checked again by safePath), and
// user text only ever appears as a `$regex` source with metacharacters escaped, or as a plain
// string compared for equality (a file key) — never as an object that could carry operators.
//
// Matching: `$regex` with the `i` option (Unicode-aware, where SQLite's LIKE only folds ASCII).
// A regex on an array field matches when any element does, like json_each on the SQL side. JSON
// booleans (e.g. checks.spf) are matched by testing the pattern against "true"/"false" here and
// comparing with the boolean; numbers inside JSON maps are not regex-matched by Mongo.
import type { QueryNode } from './ast.js';
import { resolveField, type FieldSpec } from './fields.js';
import { matcherFor, type Matcher, type PatternPart } from './values.js';

export type MongoFilter = Record<string, unknown>;

/** Matches no document: used for an empty OR (the parser never produces one). */
const NOTHING: MongoFilter = { _id: { $exists: false } };

/** `now` (epoch ms) anchors date math such as `now-14d`. */
export function compileMongo(node: QueryNode, now: number): MongoFilter {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const children = node.children.map((c) => compileMongo(c, now));
      if (children.length === 1) return children[0];
      if (children.length === 0) return node.kind === 'and' ? {} : NOTHING;
      return node.kind === 'and' ? { $and: children } : { $or: children };
    }
    case 'not':
      // $nor rather than $not: $not is per field, and $nor also matches documents lacking the field.
      return { $nor: [compileMongo(node.child, now)] };
    case 'exists':
      return exists(resolveField(node.field, node.pos));
    case 'term':
    case 'range': {
      const spec = resolveField(node.field, node.pos);
      return leaf(spec, matcherFor(node, spec, now));
    }
  }
}

function leaf(spec: FieldSpec, m: Matcher): MongoFilter {
  if (m.kind === 'exists') return exists(spec);
  if (m.kind === 'pattern') return pattern(spec, regexSource(m.parts, m.anchored));
  const path = safePath(spec.mongo);
  const cond: Record<string, number> = {};
  if (m.lo !== null) cond[m.loInclusive ? '$gte' : '$gt'] = m.lo;
  if (m.hi !== null) cond[m.hiInclusive ? '$lte' : '$lt'] = m.hi;
  return Object.keys(cond).length ? { [path]: cond } : { [path]: { $exists: true, $ne: null } };
}

function exists(spec: FieldSpec): MongoFilter {
  const path = safePath(spec.mongo);
  if (spec.sql.kind === 'files') {
    // Some element is the file: one $elemMatch per key field rather than an $or inside one, which
    // means the same and which wire-compatible servers lacking `$or` within `$elemMatch` also run.
    const key = spec.sql.key;
    if (key === null) return { [path]: { $elemMatch: { filename: { $exists: true } } } };
    return { $or: [{ [path]: { $elemMatch: { name: key } } }, { [path]: { $elemMatch: { id: key } } }] };
  }
  if (spec.exists === 'present' || spec.match === 'number' || spec.match === 'date') {
    return { [path]: { $exists: true, $ne: null } };
  }
  // Non-empty: an array needs a non-empty element, a scalar must not be null or ''.
  if (spec.mongoArray) return { [path]: { $elemMatch: { $nin: [null, ''] } } };
  return orUnset(spec, { [path]: { $exists: true, $nin: [null, ''] } }, () => true);
}

/** @filter, or a document lacking the field whose default (FieldSpec.mongoUnset) @matches. */
function orUnset(spec: FieldSpec, filter: MongoFilter, matches: (value: string) => boolean): MongoFilter {
  const unset = spec.mongoUnset;
  if (!unset || !matches(unset.value)) return filter;
  return { $or: [filter, { type: unset.type, [safePath(spec.mongo)]: { $exists: false } }] };
}

function pattern(spec: FieldSpec, source: string): MongoFilter {
  const path = safePath(spec.mongo);
  const regex = { $regex: source, $options: 'i' };
  if (spec.sql.kind === 'files') return { [path]: { $elemMatch: { ...fileKey(spec.sql.key), filename: regex } } };
  if (!spec.loose) return orUnset(spec, { [path]: regex }, (v) => new RegExp(source, 'i').test(v));
  // SQL sees JSON booleans as the words true/false; mirror that with explicit comparisons.
  const alternatives: MongoFilter[] = [{ [path]: regex }];
  const js = new RegExp(source, 'i');
  for (const b of [true, false]) if (js.test(String(b))) alternatives.push({ [path]: b });
  return alternatives.length === 1 ? alternatives[0] : { $or: alternatives };
}

function fileKey(key: string | null): MongoFilter {
  if (key === null) return {};
  return { $or: [{ name: key }, { id: key }] };
}

/**
 * Escapes regex metacharacters in literal text and translates the wildcards. Control characters
 * are written as \xHH (Mongo refuses a NUL inside a pattern). Anchored patterns must match the
 * whole value; [\s\S] rather than `.` so wildcards also span newlines, like SQL's `%`.
 */
export function regexSource(parts: PatternPart[], anchored: boolean): string {
  const body = parts
    .map((p) => (p.kind === 'many' ? '[\\s\\S]*' : p.kind === 'one' ? '[\\s\\S]' : p.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)))
    .join('');
  return anchored ? `^(?:${body})$` : body;
}

/** Defence in depth: fields.ts only builds safe paths, but a filter key must never be an operator. */
function safePath(path: string): string {
  const segments = path.split('.');
  if (segments.some((s) => s === '' || s.includes('$') || s.includes('\0'))) {
    throw new Error(`Unsafe Mongo path ${JSON.stringify(path)}`);
  }
  return path;
}
