// The capture writer's row (columns.ts): the headers' JSON text, written without JSON.stringify.
import { describe, expect, it } from 'vitest';
import { sampleRequest } from '../../store.contract.js';
import { listsJson, REQUEST_ROW, toRecord, toRow } from './columns.js';

describe('listsJson', () => {
  const cases: Record<string, unknown>[] = [
    {},
    { host: ['127.0.0.1:3000'], 'content-type': ['application/json'], 'content-length': ['98'] },
    { 'x-many': ['a', 'b', ''], 'x-empty': [] },
    { 'x-quote': ['say "hi"', 'back\\slash', 'tab\there', 'nl\nx', '\u0000\u001f\u007f'] },
    { 'x-unicode': ['é', '日本', '😀', 'a\ud800b', '\udfff', '\ud83d\ude00\ud83d'] },
    { '"odd"': ['x'], 'a\\b': ['y'], '\ud800': ['z'] },
    // Integer-like keys come first in both.
    { b: ['1'], 10: ['2'], 2: ['3'], a: ['4'] },
    JSON.parse('{"__proto__": ["p"], "x": ["y"]}') as Record<string, unknown>,
    // Not lists of strings: left to JSON.stringify.
    { a: 'plain' },
    { a: [1, null] },
    { a: ['x', undefined] },
    { a: { b: ['c'] } },
  ];
  it('writes the same text as JSON.stringify', () => {
    for (const c of cases) expect(listsJson(c)).toBe(JSON.stringify(c));
    const sparse: unknown[] = ['a'];
    sparse[2] = 'c';
    expect(listsJson({ s: sparse })).toBe(JSON.stringify({ s: sparse }));
    const inherited = Object.create({ hidden: ['x'] }) as Record<string, unknown>;
    inherited.own = ['y'];
    expect(listsJson(inherited)).toBe(JSON.stringify(inherited));
    const hidden = { shown: ['a'] };
    Object.defineProperty(hidden, 'unlisted', { value: ['b'], enumerable: false });
    expect(listsJson(hidden)).toBe(JSON.stringify(hidden));
  });

  it('is what a row binds for the headers, read back as they were', () => {
    const headers = { host: ['h'], 'x-a': ['1', '"2"'], 'x-é': ['😀'] };
    const record = sampleRequest('t', { headers });
    const row = toRow(record);
    expect(row[REQUEST_ROW.position('headers')]).toBe(JSON.stringify(headers));
    const names = REQUEST_ROW.columns.map((c) => c.name);
    const stored = Object.fromEntries(names.map((n, i) => [n, row[i] ?? null]));
    expect(toRecord(stored).headers).toEqual(headers);
  });
});
