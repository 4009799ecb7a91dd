import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../types.js';
import type { QueryNode } from './ast.js';
import { searchCases, searchErrors, searchNow, searchSamples } from './fixtures.js';
import { compileMongo, parseQuery, QuerySyntaxError, resolveDate, resolveDateSpan } from './index.js';

const term = (field: string, value: string, pos: number, quoted = false): QueryNode => ({ kind: 'term', field, value, quoted, pos });

function syntaxError(query: string): QuerySyntaxError {
  try {
    parseQuery(query);
  } catch (e) {
    if (e instanceof QuerySyntaxError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('parseQuery', () => {
  it('returns null for blank input', () => {
    expect(parseQuery('')).toBeNull();
    expect(parseQuery('   \t')).toBeNull();
  });

  it('parses bare terms as content and field terms', () => {
    expect(parseQuery('foobar')).toEqual(term('content', 'foobar', 0));
    expect(parseQuery('method:GET')).toEqual(term('method', 'GET', 0));
    expect(parseQuery('url:https://x.test/a?b=c')).toEqual(term('url', 'https://x.test/a?b=c', 0));
  });

  it('parses quoted values with escapes', () => {
    expect(parseQuery('content:"a \\"b\\" \\\\ c"')).toEqual(term('content', 'a "b" \\ c', 0, true));
    expect(parseQuery('"two words"')).toEqual(term('content', 'two words', 0, true));
  });

  it('parses nested fields', () => {
    expect(parseQuery('headers.user-agent:curl')).toEqual(term('headers.user-agent', 'curl', 0));
    for (const f of ['query.action', 'request.x', 'checks.spf', 'files.file', 'dns.name', 'dns.type']) {
      expect(parseQuery(`${f}:v`)).toEqual(term(f, 'v', 0));
    }
  });

  it('parses boolean operators with NOT > AND > OR precedence', () => {
    const a = term('content', 'a', 0);
    expect(parseQuery('a OR b c')).toEqual({
      kind: 'or',
      children: [a, { kind: 'and', children: [term('content', 'b', 5), term('content', 'c', 7)] }],
    });
    expect(parseQuery('a && b || c')).toEqual({
      kind: 'or',
      children: [{ kind: 'and', children: [a, term('content', 'b', 5)] }, term('content', 'c', 10)],
    });
    expect(parseQuery('a AND NOT b')).toEqual({ kind: 'and', children: [a, { kind: 'not', child: term('content', 'b', 10) }] });
    expect(parseQuery('!a')).toEqual({ kind: 'not', child: term('content', 'a', 1) });
    expect(parseQuery('-a')).toEqual({ kind: 'not', child: term('content', 'a', 1) });
    expect(parseQuery('-(a)')).toEqual({ kind: 'not', child: term('content', 'a', 2) });
    expect(parseQuery('-"a"')).toEqual({ kind: 'not', child: term('content', 'a', 1, true) });
    expect(parseQuery('a - b')).toEqual({ kind: 'and', children: [a, term('content', '-', 2), term('content', 'b', 4)] });
    expect(parseQuery('(a OR b) c')).toEqual({
      kind: 'and',
      children: [{ kind: 'or', children: [term('content', 'a', 1), term('content', 'b', 6)] }, term('content', 'c', 9)],
    });
    // Lower-case words and words that merely start with a keyword are terms.
    expect(parseQuery('a and ANDROID')).toEqual({ kind: 'and', children: [a, term('content', 'and', 2), term('content', 'ANDROID', 6)] });
  });

  it('applies a field to a group', () => {
    expect(parseQuery('method:(GET OR POST)')).toEqual({ kind: 'or', children: [term('method', 'GET', 8), term('method', 'POST', 15)] });
  });

  it('parses _exists_', () => {
    expect(parseQuery('_exists_:query.action')).toEqual({ kind: 'exists', field: 'query.action', pos: 0 });
  });

  it('parses ranges and comparisons', () => {
    expect(parseQuery('created_at:["2022-01-01 00:00:00" TO *]')).toEqual({
      kind: 'range',
      field: 'created_at',
      from: '2022-01-01 00:00:00',
      to: null,
      includeFrom: true,
      includeTo: true,
      pos: 0,
    });
    expect(parseQuery('size:{1 TO 5]')).toEqual({ kind: 'range', field: 'size', from: '1', to: '5', includeFrom: false, includeTo: true, pos: 0 });
    expect(parseQuery('created_at:[* TO now-14d]')).toMatchObject({ from: null, to: 'now-14d' });
    expect(parseQuery('size:>=10')).toMatchObject({ kind: 'range', from: '10', to: null, includeFrom: true });
    expect(parseQuery('size:<10')).toMatchObject({ kind: 'range', from: null, to: '10', includeTo: false });
  });

  it('rejects every shared invalid query', () => {
    for (const q of searchErrors) expect(() => parseQuery(q), q).toThrow(QuerySyntaxError);
  });

  it('reports positions', () => {
    expect(syntaxError('method:GET)').message).toBe('Unexpected ")" at position 10');
    expect(syntaxError('(method:GET').position).toBe(0);
    expect(syntaxError('a AND').message).toBe('Unexpected end of query at position 5');
    expect(syntaxError('a OR OR b').message).toBe('Unexpected "OR" at position 5');
    expect(syntaxError('x content:"abc').position).toBe(10);
    expect(syntaxError('a foo:bar').message).toBe('Unknown field "foo" at position 2');
    expect(syntaxError('created_at:[2022 2023]').message).toBe('Expected "TO" in range at position 17');
    expect(syntaxError('size:abc').message).toContain('Invalid number "abc"');
    expect(syntaxError('x'.repeat(4097)).position).toBe(4096);
    expect(syntaxError('NOT '.repeat(33) + 'a').message).toContain('nested deeper than 32');
    expect(syntaxError('NOT '.repeat(33) + 'a')).toMatchObject({ status: 400 });
  });

  it('accepts 32 levels of nesting', () => {
    expect(parseQuery(`${'('.repeat(32)}a${')'.repeat(32)}`)).toEqual(term('content', 'a', 32));
  });
});

describe('date math', () => {
  const now = Date.UTC(2001, 0, 1, 12, 0, 0);
  const iso = (expr: string): string => new Date(resolveDate(expr, now)).toISOString();

  it('resolves the documented examples', () => {
    expect(iso('now+1h')).toBe('2001-01-01T13:00:00.000Z');
    expect(iso('now-1h')).toBe('2001-01-01T11:00:00.000Z');
    expect(iso('now-1h/d')).toBe('2001-01-01T00:00:00.000Z');
    expect(iso('2001.02.01||+1M/d')).toBe('2001-03-01T00:00:00.000Z');
  });

  it('supports anchors, units and rounding', () => {
    expect(resolveDate('now', now)).toBe(now);
    expect(iso('now-14d')).toBe('2000-12-18T12:00:00.000Z');
    expect(iso('now+1h/d')).toBe('2001-01-01T00:00:00.000Z');
    expect(iso('*-1y')).toBe('2000-01-01T12:00:00.000Z');
    expect(iso('now+1w+2H+3m+4s')).toBe('2001-01-08T14:03:04.000Z');
    expect(iso('now/M')).toBe('2001-01-01T00:00:00.000Z');
    expect(iso('now+2d/w')).toBe('2001-01-01T00:00:00.000Z'); // 2001-01-01 was a Monday
    expect(iso('now+6d/w')).toBe('2001-01-01T00:00:00.000Z');
    expect(iso('now+7d/w')).toBe('2001-01-08T00:00:00.000Z');
    expect(iso('2022-01-31||+1M')).toBe('2022-02-28T00:00:00.000Z');
    expect(iso('2024-02-29||+1y')).toBe('2025-02-28T00:00:00.000Z');
    expect(iso('2022-01-01||')).toBe('2022-01-01T00:00:00.000Z');
  });

  it('parses plain dates in UTC', () => {
    expect(iso('2022-01-01')).toBe('2022-01-01T00:00:00.000Z');
    expect(iso('2022-01-01 10:20:30')).toBe('2022-01-01T10:20:30.000Z');
    expect(iso('2022-01-01T00:00:00Z')).toBe('2022-01-01T00:00:00.000Z');
    expect(iso('2022-01-01T02:00:00+02:00')).toBe('2022-01-01T00:00:00.000Z');
    expect(iso('2022-01-01T10:20:30.5')).toBe('2022-01-01T10:20:30.500Z');
    expect(resolveDate('1640995200000', now)).toBe(Date.UTC(2022, 0, 1));
  });

  it('gives each expression a span', () => {
    const span = (expr: string) => {
      const s = resolveDateSpan(expr, now);
      return [new Date(s.start).toISOString(), new Date(s.end).toISOString()];
    };
    expect(span('2022-01-01')).toEqual(['2022-01-01T00:00:00.000Z', '2022-01-02T00:00:00.000Z']);
    expect(span('2022-02')).toEqual(['2022-02-01T00:00:00.000Z', '2022-03-01T00:00:00.000Z']);
    expect(span('2022-01-01 10:00:00')).toEqual(['2022-01-01T10:00:00.000Z', '2022-01-01T10:00:01.000Z']);
    expect(span('now/d')).toEqual(['2001-01-01T00:00:00.000Z', '2001-01-02T00:00:00.000Z']);
    expect(span('now')).toEqual(['2001-01-01T12:00:00.000Z', '2001-01-01T12:00:00.001Z']);
  });

  it('rejects garbage', () => {
    for (const bad of ['', 'yesterday', 'now-', 'now-1x', 'now+1', '2022-13-01', '2022-02-30', '2022-01-01+1d', '2022-01-01 25:00:00', 'now+99999999y', '12345']) {
      expect(() => resolveDate(bad, now), bad).toThrow(QuerySyntaxError);
    }
  });
});

// --- Mongo: a tiny evaluator for the operators compileMongo emits ------------------------------

type Doc = Record<string, unknown>;
const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

/** Values at a dotted path, descending through arrays like Mongo does. */
function valuesAt(value: unknown, segments: string[], out: unknown[] = []): unknown[] {
  if (segments.length === 0) out.push(value);
  else if (Array.isArray(value)) for (const e of value) valuesAt(e, segments, out);
  else if (isObject(value) && Object.hasOwn(value, segments[0])) valuesAt(value[segments[0]], segments.slice(1), out);
  return out;
}

function matchesValue(found: unknown[], cond: unknown): boolean {
  // Candidates: each value found, and the elements of arrays found. Missing counts as null.
  const candidates = found.flatMap((v) => (Array.isArray(v) ? [v, ...v] : [v]));
  const equals = (x: unknown) => (x === null ? found.length === 0 || candidates.includes(null) : candidates.includes(x));
  if (!isObject(cond) || !Object.keys(cond).some((k) => k.startsWith('$'))) return equals(cond);
  return Object.entries(cond).every(([op, arg]) => {
    switch (op) {
      case '$regex': {
        const re = new RegExp(arg as string, (cond.$options as string) ?? '');
        return candidates.some((c) => typeof c === 'string' && re.test(c));
      }
      case '$options':
        return true;
      case '$exists':
        return found.length > 0 === arg;
      case '$ne':
        return !equals(arg);
      case '$nin':
        return !(arg as unknown[]).some(equals);
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return candidates.some((c) => typeof c === 'number' && (op === '$gt' ? c > (arg as number) : op === '$gte' ? c >= (arg as number) : op === '$lt' ? c < (arg as number) : c <= (arg as number)));
      case '$elemMatch':
        return found.some((v) => Array.isArray(v) && v.some((e) => (Object.keys(arg as Doc).some((k) => k.startsWith('$') && k !== '$or') ? matchesValue([e], arg) : isObject(e) && matches(e, arg as Doc))));
      default:
        throw new Error(`evaluator: unsupported operator ${op}`);
    }
  });
}

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === '$and') return (cond as Doc[]).every((f) => matches(doc, f));
    if (key === '$or') return (cond as Doc[]).some((f) => matches(doc, f));
    if (key === '$nor') return !(cond as Doc[]).some((f) => matches(doc, f));
    if (key.startsWith('$')) throw new Error(`evaluator: unsupported operator ${key}`);
    return matchesValue(valuesAt(doc, key.split('.')), cond);
  });
}

function mongoDoc(r: Partial<RequestRecord>): Doc {
  const { body, form, httpVersion, ...rest } = r;
  return { _id: r.uuid, ...rest, form: form ?? null, content_text: body?.toString('utf8') ?? '', ...(httpVersion ? { http_version: httpVersion } : {}) };
}

/** Every key in a filter, recursively, with the values under `$regex`. */
function walk(filter: unknown, keys: string[] = [], regexes: string[] = []): { keys: string[]; regexes: string[] } {
  if (Array.isArray(filter)) for (const f of filter) walk(f, keys, regexes);
  else if (isObject(filter)) {
    for (const [k, v] of Object.entries(filter)) {
      keys.push(k);
      if (k === '$regex') regexes.push(v as string);
      walk(v, keys, regexes);
    }
  }
  return { keys, regexes };
}

describe('compileMongo', () => {
  const docs = searchSamples.map(mongoDoc);
  const search = (query: string): string[] => {
    const filter = compileMongo(parseQuery(query)!, searchNow);
    return docs
      .filter((d) => matches(d, filter))
      .map((d) => d.uuid as string)
      .sort();
  };

  it.each(searchCases)('$query', ({ query, expect: uuids }) => {
    expect(search(query)).toEqual([...uuids].sort());
  });

  it('compiles to plain filters', () => {
    expect(compileMongo(parseQuery('method:GET')!, searchNow)).toEqual({ method: { $regex: '^(?:GET)$', $options: 'i' } });
    expect(compileMongo(parseQuery('content:a.b?c*')!, searchNow)).toEqual({ content_text: { $regex: 'a\\.b[\\s\\S]c', $options: 'i' } });
    expect(compileMongo(parseQuery('method:P*T')!, searchNow)).toEqual({ method: { $regex: '^(?:P[\\s\\S]*T)$', $options: 'i' } });
    expect(compileMongo(parseQuery('NOT size:[1 TO 5}')!, searchNow)).toEqual({ $nor: [{ size: { $gte: 1, $lt: 5 } }] });
    expect(compileMongo(parseQuery('_exists_:query.action')!, searchNow)).toEqual({ 'query.action': { $exists: true, $ne: null } });
    expect(compileMongo(parseQuery('_exists_:custom_action_errors')!, searchNow)).toEqual({ custom_action_errors: { $elemMatch: { $nin: [null, ''] } } });
    expect(compileMongo(parseQuery('created_at:2024-06-14')!, searchNow)).toEqual({
      created_at: { $gte: Date.UTC(2024, 5, 14), $lt: Date.UTC(2024, 5, 15) },
    });
    expect(compileMongo(parseQuery('headers.User-Agent:x')!, searchNow)).toEqual({ 'headers.user-agent': { $regex: 'x', $options: 'i' } });
  });

  it('never lets user text become an operator or a key', () => {
    const hostile = ['"{\\"$gt\\":\\"\\"}"', '$where:1', 'content:"{\\"$ne\\": null}"', 'content:.*', 'content:"a\u0000b"'];
    for (const q of hostile) {
      const filter = compileMongo(parseQuery(q)!, searchNow);
      const { keys, regexes } = walk(filter);
      expect(
        keys.every((k) => ['content_text', '$regex', '$options'].includes(k)),
        q,
      ).toBe(true);
      // The escaped pattern only matches the literal text.
      const literal = parseQuery(q) as Extract<QueryNode, { kind: 'term' }>;
      expect(new RegExp(regexes[0]).test(literal.value), q).toBe(true);
      expect(regexes[0]).not.toContain('\u0000');
    }
    expect(compileMongo(parseQuery('"{\\"$gt\\":\\"\\"}"')!, searchNow)).toEqual({ content_text: { $regex: '\\{"\\$gt":""\\}', $options: 'i' } });
    expect(() => parseQuery('$where:1 OR _exists_:$where')).toThrow(QuerySyntaxError);
  });
});
