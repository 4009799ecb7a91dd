import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { MAX_DOCUMENT_BYTES, MAX_PARSE_DEPTH, ParseLimitError, checkParseLimits, deeperThan } from './parse-limits.js';

const root = path.join(import.meta.dirname, '..', '..', '..');
const nested = (open: string, close: string, n: number, inner = '1') => open.repeat(n) + inner + close.repeat(n);
const limitOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParseLimitError) return { limit: e.limit, status: e.status, message: e.message };
    throw e;
  }
  return null;
};

describe('depth of JSON', () => {
  it('counts brackets and braces outside strings, exactly', () => {
    expect(deeperThan(nested('[', ']', 64), 'json')).toBe(-1);
    expect(deeperThan(nested('[', ']', 65), 'json')).toBe(64);
    expect(deeperThan(nested('{"a":', '}', 65), 'json')).toBeGreaterThan(0);
    expect(deeperThan(JSON.stringify({ s: '[[[[{{{{'.repeat(100), t: 'a\\"[[[[' }), 'json')).toBe(-1);
    expect(deeperThan(`["]]]]]]]]", ${nested('[', ']', 64)}]`, 'json')).toBeGreaterThan(0);
  });
});

describe('depth of YAML', () => {
  it('counts flow collections as the lexer finds them, not brackets inside scalars', () => {
    // The map and its value are two levels, the brackets 62 more.
    expect(deeperThan('a: ' + nested('[', ']', 62, ''), 'yaml')).toBe(-1);
    expect(deeperThan('a: ' + nested('[', ']', 63, ''), 'yaml')).toBeGreaterThan(0);
    expect(deeperThan('a: ' + nested('[', ']', 800, ''), 'yaml')).toBeGreaterThan(0);
    const scalars = ['re: ^[a-z]+$ ' + '['.repeat(200), `q: "${'['.repeat(200)}"`, `s: '${'{'.repeat(200)}'`, 'code: |\n  ' + '{ ['.repeat(200) + '\nnext: 1'].join('\n');
    expect(deeperThan(scalars, 'yaml')).toBe(-1);
  });

  it('counts block levels: indentation and every indicator on a line', () => {
    expect(deeperThan('- '.repeat(3000) + 'x', 'yaml')).toBeGreaterThan(0);
    expect(deeperThan('? '.repeat(3000) + 'x', 'yaml')).toBeGreaterThan(0);
    const stairs = Array.from({ length: 100 }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1';
    expect(deeperThan(stairs, 'yaml')).toBeGreaterThan(0);
    expect(deeperThan(stairs, 'yaml', 200)).toBe(-1);
    // Back at the margin, the levels above are closed.
    expect(deeperThan(Array.from({ length: 100 }, () => 'a:\n  b:\n    - c: [1, {d: 2}]').join('\n'), 'yaml')).toBe(-1);
  });

  it('passes every YAML and JSON file of the repository as YAML', () => {
    const files = ['workflows', 'workflows/examples', 'plugins/mock/test/fixtures', 'schemas', 'schemas/actions'].flatMap((d) =>
      readdirSync(path.join(root, d))
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .map((f) => path.join(root, d, f)),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) expect(deeperThan(readFileSync(f, 'utf8'), 'yaml'), f).toBe(-1);
  });

  it('lets through only what yaml parses without running out of stack', () => {
    // Each of these blows yaml's stack at some depth; under the limit they parse.
    for (const make of [(n: number) => 'a: ' + nested('[', ']', n, ''), (n: number) => '- '.repeat(n) + 'x', (n: number) => '? '.repeat(n) + 'x']) {
      let n = 1;
      while (deeperThan(make(n + 1), 'yaml') < 0) n++;
      expect(n).toBeLessThanOrEqual(MAX_PARSE_DEPTH);
      expect(parseAllDocuments(make(n))[0]!.errors).toEqual([]);
    }
  });
});

describe('depth of XML and HTML', () => {
  it('counts open elements; empty, void and closed ones do not nest', () => {
    expect(deeperThan(nested('<a>', '</a>', 64), 'xml')).toBe(-1);
    expect(deeperThan(nested('<a>', '</a>', 65), 'xml')).toBeGreaterThan(0);
    expect(deeperThan('<r>' + '<a x="<b>"/><!-- <c> --><![CDATA[<d>]]><?pi <e>?>'.repeat(500) + '</r>', 'xml')).toBe(-1);
    expect(deeperThan('<html><body>' + '<br><img src=x><p>x</p>'.repeat(500) + '</body></html>', 'html')).toBe(-1);
    // In XML, an unclosed <br> nests like any element.
    expect(deeperThan('<r>' + '<br>'.repeat(500), 'xml')).toBeGreaterThan(0);
    expect(deeperThan('<html>' + '<div>'.repeat(500), 'html')).toBeGreaterThan(0);
  });
});

describe('checkParseLimits', () => {
  it('names the limit, with 422 for depth and 413 for size', () => {
    expect(limitOf(() => checkParseLimits(nested('[', ']', 100), 'json', { what: 'The document' }))).toEqual({ limit: 'depth', status: 422, message: `The document nests deeper than ${MAX_PARSE_DEPTH} levels` });
    expect(limitOf(() => checkParseLimits('x'.repeat(MAX_DOCUMENT_BYTES + 1), 'yaml', { what: 'The document' }))).toEqual({ limit: 'size', status: 413, message: 'The document is larger than 4 MiB' });
    // Bytes, not characters: 2-byte characters count twice.
    expect(limitOf(() => checkParseLimits('é'.repeat(600), 'json', { what: 'It', maxBytes: 1024 }))?.limit).toBe('size');
    expect(checkParseLimits('é'.repeat(500), 'json', { what: 'It', maxBytes: 1024 })).toHaveLength(500);
    expect(limitOf(() => checkParseLimits('x'.repeat(MAX_DOCUMENT_BYTES + 1), 'json', { what: 'A body', maxBytes: Infinity }))).toBeNull();
  });
});
