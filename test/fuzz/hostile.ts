// Hostile parts of a request, as fast-check arbitraries: values of the wrong type, huge and deeply
// nested documents (JSON, YAML, XML), bytes that are no UTF-8, duplicate JSON keys, odd content
// types, path traversal and odd query strings. Each body says what it is (`what`), so a failure
// report names it even when the bytes are too many to print.
import fc from 'fast-check';

export interface Body {
  bytes: Buffer;
  contentType?: string;
  what: string;
}

const text = (s: string) => Buffer.from(s, 'utf8');
const repeat = (s: string, n: number) => s.repeat(n);

/** Nesting depths: shallow enough to be fine, and deep enough to overflow a recursive parser. */
export const DEPTHS = [64, 800, 2_500, 12_000, 100_000] as const;

/** A JSON text nested `depth` levels (built without recursion). */
export function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? repeat('[', depth) + '1' + repeat(']', depth) : repeat('{"a":', depth) + '1' + repeat('}', depth);
}

/** Values of the wrong type, huge, deep or odd, in JSON text, to put where a field's value goes. */
export const hostileJsonValue: fc.Arbitrary<{ json: string; what: string }> = fc.oneof(
  {
    arbitrary: fc
      .record({ depth: fc.constantFrom(...DEPTHS), kind: fc.constantFrom('array' as const, 'object' as const) })
      .map(({ depth, kind }) => ({ json: deepJson(depth, kind), what: `${kind}s nested ${depth} deep` })),
    weight: 3,
  },
  {
    arbitrary: fc.constantFrom(
      { json: 'null', what: 'null' },
      { json: 'true', what: 'a boolean' },
      { json: '[]', what: 'an empty array' },
      { json: '{}', what: 'an empty object' },
      { json: '""', what: 'an empty string' },
      { json: '-0', what: '-0' },
      { json: '1e400', what: 'a number past double range' },
      { json: '-1e308', what: 'a huge negative number' },
      { json: '12345678901234567890123456789012345678901234567890', what: 'a 50-digit integer' },
      { json: '0.0000000000000000000000000000001', what: 'a tiny number' },
      { json: '"\\u0000"', what: 'a NUL character' },
      { json: '"\\ud800"', what: 'a lone surrogate' },
      { json: '"$request.content$$a$"', what: 'template variables' },
      { json: '"../../../../etc/passwd"', what: 'a traversal path' },
      { json: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}', what: 'prototype keys' },
      { json: '"' + repeat('a', 70_000) + '"', what: 'a 70 kB string' },
      { json: '[' + repeat('0,', 100_000) + '0]', what: 'an array of 100k items' },
      { json: '{' + Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',') + '}', what: 'an object of 20k keys' },
    ),
    weight: 3,
  },
  fc.string({ maxLength: 40, unit: 'binary' }).map((s) => ({ json: JSON.stringify(s), what: 'a random string' })),
  fc.integer().map((n) => ({ json: String(n), what: 'a random integer' })),
);

/** YAML and XML documents that are deep, huge or expand (for workflow documents and parsers in actions). */
export const hostileDocument: fc.Arbitrary<{ text: string; what: string }> = fc.oneof(
  fc.constantFrom(...DEPTHS).map((n) => ({ text: `apiVersion: ${repeat('[', n)}${repeat(']', n)}\n`, what: `a YAML flow sequence nested ${n} deep` })),
  fc.constantFrom(...DEPTHS).map((n) => ({ text: `apiVersion: ${repeat('{a: ', n)}1${repeat('}', n)}\n`, what: `a YAML flow mapping nested ${n} deep` })),
  fc.constantFrom(64, 800, 1_500).map((n) => ({ text: Array.from({ length: n }, (_, i) => `${repeat(' ', i)}- `).join('\n') + 'x\n', what: `a YAML block sequence nested ${n} deep` })),
  fc.constant({
    text:
      'a: &a ["x","x","x","x","x","x","x","x","x"]\n' +
      Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ).join('\n') +
      '\n',
    what: 'YAML aliases that expand a billion times',
  }),
  fc.constant({ text: 'apiVersion: capture/v1\nkind: TokenActions\nkind: Schedule\n!!js/function f: x\n? [a]\n: b\n<<: *nope\n', what: 'YAML with duplicate keys, tags and a missing anchor' }),
  fc.constant({
    text:
      '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${repeat(`&${String.fromCharCode(97 + i)};`, 10)}">`).join('') +
      ']><l>&j;</l>',
    what: 'XML entities that expand a billion times',
  }),
  fc.constant({ text: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', what: 'an XML external entity' }),
  fc.constantFrom(...DEPTHS).map((n) => ({ text: repeat('<a>', n) + repeat('</a>', n), what: `XML nested ${n} deep` })),
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=nope',
  'application/vnd.api+json',
  'text/plain',
  'text/yaml',
  'application/x-yaml',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=zz',
  'a/b/c',
  '*/*',
  ';;;',
  'application/json; charset="\x7f"',
  '',
];

/** Whether a text holds one of hostileDocument's documents (for the body's description). */
const DOCUMENT = /\[{40}|(\{a: ){40}|<!ENTITY|(<a>){40}|&a \[|(- ){40}|!!js\//;

function fitting(json: string): Body {
  return { bytes: text(json), contentType: 'application/json', what: DOCUMENT.test(json) ? 'a fitting body with a deep or expanding document in a text' : 'a fitting body' };
}

/** A whole body: JSON of every kind, documents, forms and bytes that are no UTF-8. */
export function hostileBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Body> {
  const json = 'application/json';
  return fc.oneof(
    // A fitting value with one field spoiled.
    {
      weight: 4,
      arbitrary: fc.tuple(valid, fc.nat(), hostileJsonValue).map(([v, i, bad]) => {
        if (!v || typeof v !== 'object' || Array.isArray(v)) return { bytes: text(bad.json), contentType: json, what: `the whole body as ${bad.what}` };
        const keys = Object.keys(v);
        const key = keys.length ? keys[i % keys.length]! : 'name';
        const rest = JSON.stringify(Object.fromEntries(Object.entries(v).filter(([k]) => k !== key))).slice(1);
        return { bytes: text(`{${JSON.stringify(key)}:${bad.json}${rest === '}' ? '}' : ',' + rest}`), contentType: json, what: `field ${key} as ${bad.what}` };
      }),
    },
    // A fitting value, as it is (its texts may hold hostile documents: schema-values.ts).
    { weight: 4, arbitrary: valid.map((v) => fitting(JSON.stringify(v) ?? 'null')) },
    // The same key twice, the second of another type.
    fc.tuple(valid, hostileJsonValue).map(([v, bad]) => {
      const body = JSON.stringify(v && typeof v === 'object' && !Array.isArray(v) ? v : { name: 'x' });
      const key = Object.keys(JSON.parse(body))[0] ?? 'name';
      return { bytes: text(`${body.slice(0, -1)}${body.length > 2 ? ',' : ''}${JSON.stringify(key)}:${bad.json}}`), contentType: json, what: `key ${key} twice, then as ${bad.what}` };
    }),
    // Bytes that are no UTF-8, inside a JSON string and bare.
    fc.tuple(fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xe2, 0x82]), fc.boolean()).map(([bad, inString]) => ({
      bytes: inString ? Buffer.concat([text('{"name":"a'), Buffer.from(bad), text('b","value":"c"}')]) : Buffer.from(bad),
      contentType: json,
      what: `bytes ${Buffer.from(bad).toString('hex')} that are no UTF-8${inString ? ' in a JSON string' : ''}`,
    })),
    fc.constantFrom(
      { bytes: text('{"a":'), contentType: json, what: 'cut-off JSON' },
      { bytes: text('{"a":1}garbage'), contentType: json, what: 'JSON with trailing bytes' },
      { bytes: text('{a:1,}'), contentType: json, what: 'JSON5' },
      { bytes: text(''), contentType: json, what: 'an empty JSON body' },
      { bytes: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), contentType: json, what: 'a byte-order mark, then {}' },
      { bytes: Buffer.from('{}', 'utf16le'), contentType: 'application/json; charset=utf-16', what: 'UTF-16 JSON' },
      { bytes: text('a[b][c][d][e][f][g][h][i][j][k]=1&__proto__[x]=1&constructor[prototype][y]=2&a=1&a=2'), contentType: 'application/x-www-form-urlencoded', what: 'a form with nested and prototype keys' },
      { bytes: text('--zz\r\nContent-Disposition: form-data; name="f"; filename="../../x"\r\n\r\nabc\r\n--zz'), contentType: 'multipart/form-data; boundary=zz', what: 'a cut-off multipart body' },
      { bytes: text('--zz\r\n\r\n--zz--'), contentType: 'multipart/form-data', what: 'multipart without a boundary parameter' },
      { bytes: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]), contentType: json, what: 'gzip magic, cut off' },
      { bytes: Buffer.alloc(300_000, 0), contentType: 'application/octet-stream', what: '300 kB of NUL bytes' },
    ),
    fc.tuple(hostileJsonValue, fc.constantFrom(...CONTENT_TYPES)).map(([bad, contentType]) => ({ bytes: text(bad.json), contentType, what: `${bad.what} as ${contentType || 'an empty content type'}` })),
    {
      weight: 3,
      arbitrary: fc
        .tuple(hostileDocument, fc.constantFrom('text/yaml', 'application/x-yaml', 'application/xml', 'text/plain', json))
        .map(([doc, contentType]) => ({ bytes: text(doc.text), contentType, what: `${doc.what} as ${contentType}` })),
    },
    // A JSON object whose string fields hold the documents (workflow steps, action parameters).
    hostileDocument.map((doc) => ({
      bytes: text(JSON.stringify({ source: doc.text, spec: doc.text, schema: doc.text, content: doc.text, template: doc.text, apiVersion: doc.text })),
      contentType: json,
      what: `${doc.what} in every string field`,
    })),
  );
}

/** Path segments: traversal (plain, encoded, doubly encoded), NUL, bytes that are no UTF-8, odd numbers. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '..',
    '../..',
    '%2e%2e',
    '%2e%2e%2f',
    '..%2f..%2f..%2fetc%2fpasswd',
    '%252e%252e%252f',
    '..%5c..%5c',
    '.%00.',
    '%00',
    'a%00b',
    '%ZZ',
    '%',
    '%C3%28',
    '%ED%A0%80',
    '%FF%FE',
    '\xff\xfe',
    '\xc3(',
    '%E2%80%AE',
    '-1',
    '0',
    '1e30',
    '99999999999999999999',
    '0x1F',
    '1.5',
    'NaN',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    'latest',
    'me',
    '%20',
    '~',
    '.',
    '%2F',
    'a;b',
    '*',
    'x'.repeat(5_000),
    '00000000-0000-4000-8000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
  ),
  fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }).map((s) => encodeURIComponent(s)),
);

/** A capture URL's rest of path. */
export const hostileRestPath: fc.Arbitrary<string> = fc.oneof(
  fc.array(hostileSegment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/')),
  fc.constantFrom('../../../../etc/passwd', '..%2f..%2f..%2f..%2fetc%2fpasswd', '500', '599/x', '200/../../x', 'a//b///c', '%2e%2e/%2e%2e/package.json', 'assets/../../../package.json', 'index.html%00.js', ''),
);

/** Query strings (without the `?`) that are odd whatever the route. */
export const hostileQuery: fc.Arbitrary<string> = fc.constantFrom(
  '%ZZ=%ZZ',
  '%00=%00',
  'a=1&a=2&a[]=3&a[b]=4',
  '__proto__[polluted]=1&constructor[prototype][x]=1',
  '=&=&&==',
  '%C3%28=%FF',
  'a=%C3%28%FF%FE',
  'x[' + 'a]['.repeat(200) + ']=1',
  'q=' + 'x'.repeat(17_000),
  'page=-5&per_page=abc&sorting=sideways',
  'per_page=1e400&page=99999999999999999999',
  'date_from=yesterday&date_to=%00',
  'format=xml&order_by=%00&order_direction=up',
  'query=' + '('.repeat(3_000),
  'query=' + encodeURIComponent('a OR '.repeat(2_000) + 'a'),
  'query=' + encodeURIComponent('NOT '.repeat(5_000) + 'x'),
  'query=' + encodeURIComponent('content:"' + 'x'.repeat(3_000)),
  'query=*%00*',
  'query=_exists_:',
  'password=&share=&api_key=',
  'last_event_id=-1',
  'last_event_id=99999999999999999999',
  'timeout=0&after=%ZZ',
  'tokens=maybe',
  'unread=2&user_id=-1',
  'type=../../x',
  'search=%25%5F%00',
);

/** A query value for a named parameter: wrong types and odd texts. */
export const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1e400',
    '99999999999999999999',
    'NaN',
    'true',
    '[]',
    '{}',
    '%00',
    '%ZZ',
    '%C3%28',
    '\xff',
    'x'.repeat(3_000),
    '2024-13-45',
    '1970-01-01T00:00:00Z',
    '-8640000000000001',
    '8640000000000001',
    '9999-12-31',
    '((((',
    'a:b:c',
    '_exists_:x',
    '*',
  ),
  fc.string({ maxLength: 16 }).map(encodeURIComponent),
);

/** Extra headers, none of them needed, some in the way (a few too large: 431). */
export const hostileHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom<[string, string]>(
        ['Content-Encoding', 'gzip'],
        ['Content-Encoding', 'br'],
        ['Content-Encoding', 'x-nope'],
        ['Accept', 'text/yaml'],
        ['Accept', 'text/event-stream'],
        ['Accept', '*/*;q=nope'],
        ['Authorization', 'Bearer x'],
        ['Last-Event-ID', '-1'],
        ['Last-Event-ID', '99999999999999999999'],
        ['X-Forwarded-For', '::1, garbage, 999.1.1.1'],
        ['X-Forwarded-Host', '../..'],
        ['Origin', 'null'],
        ['Range', 'bytes=-1'],
        ['Range', 'bytes=99999999999999999999-'],
        ['If-Modified-Since', 'yesterday'],
        ['If-None-Match', '*'],
        ['X-Odd', '\xff\xfe latin1'],
        ['Content-Type', 'text/plain'],
        ['Host', 'x.invalid'],
        ['Accept-Encoding', 'gzip, br, zstd'],
        ['X-HTTP-Method-Override', 'DELETE'],
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom<[string, string]>(['Cookie', 'a=' + 'b'.repeat(4_000)], ['X-Large', 'x'.repeat(70_000)]) },
  ),
  { maxLength: 3 },
);
