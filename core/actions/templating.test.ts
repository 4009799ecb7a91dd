import { describe, expect, it } from 'vitest';
import { testRequest } from '@capture/sdk/testing';
import { MODIFIERS, template, templateHeaderLines, templateValue } from '@capture/sdk/runner';
import { RequestVariables, VariableScope, requestVariables } from '@capture/sdk/runner';

const token = { uuid: '11111111-1111-4111-8111-111111111111', alias: 'shop' };

function scope(vars: Record<string, string> = {}, globals: Record<string, string> = {}, request = testRequest()) {
  const s = new VariableScope(requestVariables(request, token), globals);
  for (const [k, v] of Object.entries(vars)) s.set(k, v);
  return s;
}

describe('template', () => {
  it('replaces known variables and leaves unknown ones as typed', () => {
    const s = scope({ name: 'Bob' });
    expect(s.template('hi $name$, $missing$ costs $5 and $6')).toBe('hi Bob, $missing$ costs $5 and $6');
  });

  it('does not scan replaced values again', () => {
    const s = scope({ body: 'give me $secret$' }, { secret: 'hunter2' });
    expect(s.template('$body$')).toBe('give me $secret$');
  });

  it('\\$name\\$ is the literal $name$ while a lone \\$ (regex) is kept', () => {
    const s = scope({ a: '1' });
    expect(s.template('\\$a\\$ = $a$')).toBe('$a$ = 1');
    expect(s.template('^\\$(\\d+)')).toBe('^\\$(\\d+)');
  });

  it('an unresolved $ lets the next $ start a variable', () => {
    expect(scope({ b: 'x' }).template('$ $b$')).toBe('$ x');
    expect(scope({ b: 'x' }).template('$$b$')).toBe('$x');
  });

  it('applies modifiers, chained left to right', () => {
    const s = scope({ v: '{"json": "<b>value</b>"}', u: 'Hello World' });
    expect(s.template('$v.json$')).toBe('{\\"json\\": \\"<b>value</b>\\"}');
    expect(s.template('$u.upper$ $u.lower$')).toBe('HELLO WORLD hello world');
    expect(s.template('$v.base64_encode$')).toBe(Buffer.from('{"json": "<b>value</b>"}').toString('base64'));
    expect(s.template('$u.base64_encode.base64_decode$')).toBe('Hello World');
    expect(s.template('$v.html_encode$')).toBe('{&quot;json&quot;: &quot;&lt;b&gt;value&lt;/b&gt;&quot;}');
    expect(s.template('$v.html_strip$')).toBe('{"json": "value"}');
  });

  it('modifiers follow the documented examples', () => {
    expect(MODIFIERS.url_encode('{"json": "value"}')).toBe('%7B%22json%22%3A+%22value%22%7D');
    expect(MODIFIERS.url_decode('%7B%22json%22%3A+%22value%22%7D')).toBe('{"json": "value"}');
    expect(MODIFIERS.html_decode('&lt;p&gt;some html&lt;/p&gt; &#39;&#x41;&amp;')).toBe("<p>some html</p> 'A&");
    expect(MODIFIERS.json_format('{"json": "value"}')).toBe('{\n  "json": "value"\n}');
    expect(MODIFIERS.json('a\nb\t"c"\\')).toBe('a\\nb\\t\\"c\\"\\\\');
  });

  it('a variable whose name ends like a modifier wins over the modifier', () => {
    expect(scope({ 'x.upper': 'own', x: 'abc' }).template('$x.upper$')).toBe('own');
  });

  it('walks into variables holding JSON', () => {
    const s = scope({ json: '{"order":{"id":"A7","items":[{"sku":"x"},{"sku":"y"}]}}' });
    expect(s.template('$json.order.items.1.sku$ $json.order.id.lower$')).toBe('y a7');
    expect(s.template('$json.order.items.0$')).toBe('{"sku":"x"}');
    expect(s.template('$json.order.nope$')).toBe('$json.order.nope$');
  });

  it('reads global variables by name or as global.name; runtime variables win', () => {
    const s = scope({ shared: 'runtime' }, { api_key: 'k1', shared: 'global' });
    expect(s.template('$api_key$ $global.api_key$ $shared$ $global.shared$')).toBe('k1 k1 runtime global');
  });

  it('an action storing or deleting a global changes the scope, never the snapshot it was given', () => {
    const snapshot = Object.freeze({ kept: 'k', gone: 'g', constructor: 'own' });
    const s = new VariableScope(requestVariables(testRequest(), token), snapshot);
    expect(s.template('$kept$ $global.gone$ $constructor$ $toString$')).toBe('k g own $toString$');
    s.setGlobal('added', 'a');
    s.deleteGlobal('gone');
    expect(s.template('$added$ $kept$ $gone$ $global.gone$')).toBe('a k $gone$ $global.gone$');
    expect(snapshot).toEqual({ kept: 'k', gone: 'g', constructor: 'own' });
    expect(new VariableScope(new Map()).template('$hasOwnProperty$ $global.valueOf$')).toBe('$hasOwnProperty$ $global.valueOf$');
  });

  it('templateValue goes through objects and arrays, skipping listed keys', () => {
    const s = scope({ a: '1' });
    const out = templateValue({ x: '$a$', list: [{ y: '$a$' }, 2, null], script: '$a$', n: 5 }, s.resolve, ['script']);
    expect(out).toEqual({ x: '1', list: [{ y: '1' }, 2, null], script: '$a$', n: 5 });
  });

  it('header lines are split before replacing, so a value with line breaks cannot add a line', () => {
    const s = scope({ v: 'a\r\nSet-Cookie: x=1', bare: 'b\nX-Two: 2\rX-Three: 3' });
    expect(templateHeaderLines('X-A: $v$\r\nX-B: $bare$', s.resolve)).toBe('X-A: a Set-Cookie: x=1\nX-B: b X-Two: 2 X-Three: 3');
    const out = templateValue({ headers: 'X-A: $v$', content: '$v$' }, s.resolve, [], ['headers']);
    expect(out).toEqual({ headers: 'X-A: a Set-Cookie: x=1', content: 'a\r\nSet-Cookie: x=1' });
  });

  it('template works with any resolver', () => {
    expect(template('$a$-$b$', (n) => (n === 'a' ? 'A' : undefined))).toBe('A-$b$');
  });
});

describe('request variables', () => {
  const request = testRequest({
    method: 'PUT',
    url: 'https://capture.example/shop/orders/7?name=bob&x=1',
    content: 'body',
    headers: { 'content-type': ['text/plain'], 'x-multi': ['a', 'b'] },
    query: { name: 'bob', x: '1' },
    request: { field: 'v', list: ['a', 'b'] },
    files: [{ id: 'f1', name: 'upload', filename: 'a.png', size: 3, content_type: 'image/png', content: Buffer.from('PNG') }],
    created_at: '2024-01-02 03:04:05',
  });
  const vars = Object.fromEntries(requestVariables(request, token));

  it('has the documented names', () => {
    expect(vars).toMatchObject({
      'request.method': 'PUT',
      'request.content': 'body',
      'request.path': '/orders/7',
      'request.query': 'name=bob&x=1',
      'request.query.name': 'bob',
      'request.form.field': 'v',
      'request.form.list': '["a","b"]',
      'request.header.content-type': 'text/plain',
      'request.headers.x-multi': 'a, b',
      'request.file.upload.filename': 'a.png',
      'request.file.upload.content': 'PNG',
      'request.date': '2024-01-02 03:04:05',
      'request.timestamp': String(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000),
      'request.ip': '127.0.0.1',
      'request.type': 'web',
    });
  });

  it('the path is / when there is no sub-path', () => {
    expect(requestVariables(testRequest({ url: `http://h/${token.uuid}?a=1` }), token).get('request.path')).toBe('/');
  });

  it('a URL with an escape that does not decode keeps its path (no error)', () => {
    expect(requestVariables(testRequest({ url: `http://h/${token.uuid}/a%E0%A4%A?a=1` }), token).get('request.path')).toBe('/a%E0%A4%A');
    expect(requestVariables(testRequest({ url: 'http://h/%E0%A4%A/b' }), token).get('request.path')).toBe('/%E0%A4%A/b');
  });

  it('e-mail captures get the e-mail variables and no web ones', () => {
    const mail = requestVariables(testRequest({ type: 'email', sender: 'a@b.c', destinations: ['x@y', 'z@y'], checks: { spf: true } }), token);
    expect(mail.get('request.sender')).toBe('a@b.c');
    expect(mail.get('request.destinations')).toBe('x@y,z@y');
    expect(mail.get('request.checks.spf')).toBe('true');
    expect(mail.has('request.method')).toBe(false);
  });

  it('read one at a time (as a chain reads them), each is the value of the full list, in every capture type', () => {
    const captures = [
      request,
      testRequest({ url: `http://h/${token.uuid}`, content: 'not UTF-8', headers: { Host: ['h'] } }),
      testRequest({ type: 'email', sender: 'a@b.c', destinations: ['x@y'], checks: { spf: true, dkim: null }, text_content: 't', html_content: '<p>h</p>', message_id: 'm1' }),
      testRequest({ type: 'dns', ip: '10.0.0.1', dns: { name: 'a.example', type: 'A', subdomain: 'a' } } as Partial<ReturnType<typeof testRequest>>),
    ];
    const others = ['request.nope', 'request.sender', 'request.method', 'request.dns.name', 'request.header.none', 'request.content.json', 'json', 'request'];
    for (const r of captures) {
      // The second one's body is not UTF-8: request.content carries it as bytes.
      const raw = r.content === 'not UTF-8' ? Buffer.from([0xff, 0xfe, 0x00]) : Buffer.from(r.content);
      const full = requestVariables(r, token, raw);
      // Singles first, then a family (which lists them all), then everything again.
      const names = [...full.keys()].sort((a, b) => Number(a.split('.').length > 2) - Number(b.split('.').length > 2));
      const lazy = new RequestVariables(r, token, raw);
      for (const name of [...others, ...names, ...names]) expect(lazy.get(name), `${r.type} ${name}`).toBe(full.get(name));
      expect([...new RequestVariables(r, token, raw)]).toEqual([...full]);
    }
  });

  it('a scope over them lists the same variables as over the full list', () => {
    const lazy = new VariableScope(new RequestVariables(request, token));
    expect(lazy.get('request.method')).toBe('PUT');
    expect(lazy.all()).toEqual(scope({}, {}, request).all());
  });
});
