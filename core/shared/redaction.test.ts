import { describe, expect, it } from 'vitest';
import { RedactionSettingsSchema, compileRules, compileSettings, jsonPathProblem, luhnValid, redactRequest, type RedactableRequest, type RedactionRule } from './redaction.js';

function req(over: Partial<RedactableRequest> = {}): RedactableRequest {
  return {
    url: 'http://h/t',
    user_agent: 'curl',
    content_type: null,
    headers: {},
    query: null,
    form: null,
    body: Buffer.alloc(0),
    size: 0,
    files: [],
    custom_action_output: [],
    custom_action_errors: [],
    extra: {},
    ...over,
  };
}

function rules(...list: unknown[]) {
  const parsed = RedactionSettingsSchema.parse({ rules: list });
  return compileSettings(parsed);
}

describe('luhn', () => {
  it('accepts valid card numbers and refuses others', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('5500005555555559')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });
});

describe('header rules', () => {
  it('mask every value of the header, whatever its case, and say how many', () => {
    const r = req({ headers: { authorization: ['Bearer abc'], 'x-api-key': ['k1', 'k2'], accept: ['*/*'] } });
    const out = redactRequest(r, new Map(), rules({ kind: 'header', name: 'Authorization' }, { kind: 'header', name: 'X-API-KEY', replacement: '***' }));
    expect(r.headers).toEqual({ authorization: ['[REDACTED]'], 'x-api-key': ['***', '***'], accept: ['*/*'] });
    expect(out.entries).toEqual([
      { source: 'token', rule: 0, kind: 'header', target: 'authorization', count: 1 },
      { source: 'token', rule: 1, kind: 'header', target: 'x-api-key', count: 2 },
    ]);
    expect(r.extra.redactions).toEqual(out.entries);
  });

  it('mask the header in a raw e-mail message, folded lines included, and its subject field', () => {
    const raw = 'From: a@b.c\r\nSubject: secret\r\n plan\r\nX-Token: t0p\r\n\r\nSubject: body line stays\r\n';
    const r = req({ content_type: 'message/rfc822', body: Buffer.from(raw), headers: { subject: ['secret plan'], 'x-token': ['t0p'] }, extra: { subject: 'secret plan' } });
    redactRequest(r, new Map(), rules({ kind: 'header', name: 'subject' }, { kind: 'header', name: 'x-token' }));
    expect(r.body.toString()).toBe('From: a@b.c\r\nSubject: [REDACTED]\r\nX-Token: [REDACTED]\r\n\r\nSubject: body line stays\r\n');
    expect(r.extra.subject).toBe('[REDACTED]');
  });

  it('record nothing for a rule that matched nothing', () => {
    const r = req({ headers: { accept: ['x'] } });
    expect(redactRequest(r, new Map(), rules({ kind: 'header', name: 'authorization' })).entries).toEqual([]);
    expect(r.extra.redactions).toEqual([]);
  });
});

describe('query rules', () => {
  it('mask the parameter in query, query_all and the URL, leaving the others as sent', () => {
    const r = req({ url: 'http://h/t?api_key=s%20ecret&a=1&api_key=two', query: { api_key: 'two', a: '1' }, extra: { query_all: { api_key: ['s ecret', 'two'], a: ['1'] } } });
    const out = redactRequest(r, new Map(), rules({ kind: 'query', name: 'api_key' }));
    expect(r.url).toBe('http://h/t?api_key=%5BREDACTED%5D&a=1&api_key=%5BREDACTED%5D');
    expect(r.query).toEqual({ api_key: '[REDACTED]', a: '1' });
    expect(r.extra.query_all).toEqual({ api_key: ['[REDACTED]', '[REDACTED]'], a: ['1'] });
    expect(out.entries[0]).toMatchObject({ kind: 'query', target: 'api_key', count: 2 });
  });
});

describe('form rules', () => {
  it('mask an urlencoded field in the fields and in the raw body', () => {
    const body = 'user=ann&password=hunter2&x=1';
    const r = req({ content_type: 'application/x-www-form-urlencoded', body: Buffer.from(body), size: body.length, form: { user: 'ann', password: 'hunter2', x: '1' } });
    redactRequest(r, new Map(), rules({ kind: 'form', name: 'password' }));
    expect(r.form).toEqual({ user: 'ann', password: '[REDACTED]', x: '1' });
    expect(r.body.toString()).toBe('user=ann&password=%5BREDACTED%5D&x=1');
    expect(r.size).toBe(r.body.length);
  });

  it('mask a multipart field but not a file part of the same name', () => {
    const b = 'XyZ';
    const body = [
      `--${b}`,
      'Content-Disposition: form-data; name="pin"',
      '',
      '1234',
      `--${b}`,
      'Content-Disposition: form-data; name="pin"; filename="p.txt"',
      'Content-Type: text/plain',
      '',
      'file',
      `--${b}`,
      'Content-Disposition: form-data; name="other"',
      '',
      'keep',
      `--${b}--`,
      '',
    ].join('\r\n');
    const r = req({ content_type: `multipart/form-data; boundary=${b}`, body: Buffer.from(body), form: { pin: '1234', other: 'keep' } });
    const out = redactRequest(r, new Map(), rules({ kind: 'form', name: 'pin' }));
    const text = r.body.toString();
    expect(text).not.toContain('1234');
    expect(text).toContain('name="pin"\r\n\r\n[REDACTED]\r\n');
    expect(text).toContain('filename="p.txt"\r\nContent-Type: text/plain\r\n\r\nfile\r\n');
    expect(text).toContain('keep');
    expect(r.form).toEqual({ pin: '[REDACTED]', other: 'keep' });
    expect(out.entries[0]!.count).toBe(1);
  });
});

describe('json rules', () => {
  it('mask the fields a JSONPath selects and keep the rest of the document', () => {
    const doc = { user: { name: 'ann', password: 'p1' }, items: [{ token: 'a' }, { token: 'b' }] };
    const r = req({ content_type: 'application/json', body: Buffer.from(JSON.stringify(doc)) });
    const out = redactRequest(r, new Map(), rules({ kind: 'json', path: '$.user.password' }, { kind: 'json', path: '$..token' }));
    expect(JSON.parse(r.body.toString())).toEqual({ user: { name: 'ann', password: '[REDACTED]' }, items: [{ token: '[REDACTED]' }, { token: '[REDACTED]' }] });
    expect(out.entries.map((e) => e.count)).toEqual([1, 2]);
  });

  it('leave a body that is not JSON alone', () => {
    const r = req({ body: Buffer.from('password=1') });
    expect(redactRequest(r, new Map(), rules({ kind: 'json', path: '$.password' })).entries).toEqual([]);
    expect(r.body.toString()).toBe('password=1');
  });

  it('refuse JSONPaths that do not start at $, are unbalanced or select the whole document', () => {
    expect(jsonPathProblem('password')).toMatch(/start with \$/);
    expect(jsonPathProblem('$.a[')).toMatch(/incomplete/);
    expect(jsonPathProblem("$['a'")).toMatch(/unclosed/);
    expect(jsonPathProblem('$')).toMatch(/whole document/);
    expect(jsonPathProblem('$..password')).toBeNull();
    expect(jsonPathProblem('$.items[?(@.kind=="card")].number')).toBeNull();
  });
});

describe('regex and preset rules', () => {
  it('mask matches in headers, URL, query, form, body, files, e-mail fields and action output', () => {
    const r = req({
      url: 'http://h/t?code=S-123',
      query: { code: 'S-123' },
      headers: { 'x-note': ['ref S-999'] },
      form: { f: ['S-1', 'n'] },
      body: Buffer.from('body S-42'),
      files: [{ id: 'f1', size: 9 }],
      extra: { text_content: 'mail S-7', nested: { list: ['S-8'] } },
      custom_action_output: ['saw S-123'],
    });
    const out = redactRequest(r, new Map([['f1', Buffer.from('file S-5!')]]), rules({ kind: 'regex', pattern: 'S-\\d+', replacement: '#' }));
    expect(r.url).toBe('http://h/t?code=%23');
    expect(r.query).toEqual({ code: '#' });
    expect(r.headers['x-note']).toEqual(['ref #']);
    expect(r.form).toEqual({ f: ['#', 'n'] });
    expect(r.body.toString()).toBe('body #');
    expect(out.files.get('f1')!.toString()).toBe('file #!');
    expect(r.files[0]!.size).toBe(7);
    expect(r.extra).toMatchObject({ text_content: 'mail #', nested: { list: ['#'] } });
    expect(r.custom_action_output).toEqual(['saw #']);
    expect(out.entries[0]).toMatchObject({ kind: 'regex', target: 'S-\\d+', count: 9 });
  });

  it('take the replacement literally and mask nothing for empty matches', () => {
    const r = req({ body: Buffer.from('abc') });
    redactRequest(r, new Map(), rules({ kind: 'regex', pattern: 'x*' }, { kind: 'regex', pattern: 'b', replacement: '$&$1' }));
    expect(r.body.toString()).toBe('a$&$1c');
  });

  it('a pattern that times out masks the texts it searches whole, within one watchdog budget for the request', () => {
    const evil = 'a'.repeat(40) + '!';
    const r = req({ headers: { 'x-1': [evil], 'x-2': [evil], 'x-3': [evil] }, body: Buffer.from(evil), custom_action_output: ['fine'] });
    const out = redactRequest(r, new Map(), rules({ kind: 'regex', pattern: '(a+)+$' }));
    expect(r.headers).toEqual({ 'x-1': ['[REDACTED]'], 'x-2': ['[REDACTED]'], 'x-3': ['[REDACTED]'] });
    expect(r.body.toString()).toBe('[REDACTED]');
    expect(r.custom_action_output).toEqual(['[REDACTED]']);
    expect(out.entries[0]!.error).toMatch(/masked whole/);
  });

  it('bearer keeps the scheme word and masks the token', () => {
    const r = req({ headers: { authorization: ['Bearer eyJhbGciOi.J9.sig-_x='] }, body: Buffer.from('{"h":"bearer abc.def"}') });
    redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'bearer' }));
    expect(r.headers.authorization).toEqual(['Bearer [REDACTED]']);
    expect(r.body.toString()).toBe('{"h":"bearer [REDACTED]"}');
  });

  it('card masks numbers passing the Luhn check, grouped or not, and leaves other numbers', () => {
    const r = req({ body: Buffer.from('a 4111 1111 1111 1111 b 5500-0055-5555-5559 c 4111111111111112 d 1234567890123') });
    const out = redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'card' }));
    expect(r.body.toString()).toBe('a [REDACTED] b [REDACTED] c 4111111111111112 d 1234567890123');
    expect(out.entries[0]!.count).toBe(2);
  });

  it('card leaves the digits of a UUID alone, and a number glued to a word', () => {
    // Its dash-joined digits `4-3009-4100-8620-987128` hold a run that passes the Luhn check.
    const url = 'http://127.0.0.1:8084/9f408ac4-3009-4100-8620-987128ef9a1c/path';
    const r = req({ url, body: Buffer.from('id 9f408ac4-3009-4100-8620-987128ef9a1c, ref x4111111111111111, card 4111111111111111.') });
    const out = redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'card' }));
    expect(r.url).toBe(url);
    expect(r.body.toString()).toBe('id 9f408ac4-3009-4100-8620-987128ef9a1c, ref x4111111111111111, card [REDACTED].');
    expect(out.entries[0]!.count).toBe(1);
  });

  it('email masks addresses', () => {
    const r = req({ body: Buffer.from('to ann.lee+x@mail.example.com, not @handle') });
    redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'email' }));
    expect(r.body.toString()).toBe('to [REDACTED], not @handle');
  });

  it('email masks an address written percent-encoded, in any text', () => {
    const r = req({ content_type: 'application/json', body: Buffer.from('{"next":"https://x.example/cb?to=ann%2Bx%40mail.example.com&y=1"}') });
    redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'email' }));
    expect(r.body.toString()).toBe('{"next":"https://x.example/cb?to=[REDACTED]&y=1"}');
  });

  it('search an urlencoded body decoded: an encoded value is masked, other pairs keep their bytes', () => {
    // As GitHub sends a form delivery: the JSON payload in one encoded field.
    const json = JSON.stringify({ pusher: { email: '21031067+Codertocat@users.noreply.github.com' }, ref: 'refs/heads/main' });
    const body = `payload=${encodeURIComponent(json)}&note=from+jane.doe%40customer.example&keep=a%2Fb+c&plain=x`;
    const r = req({ content_type: 'application/x-www-form-urlencoded', body: Buffer.from(body), form: { payload: json, note: 'from jane.doe@customer.example', keep: 'a/b c', plain: 'x' } });
    const out = redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'email' }, { kind: 'regex', pattern: 'x', replacement: '&=+%' }));
    const stored = r.body.toString();
    expect(stored).not.toMatch(/Codertocat|jane\.doe/);
    expect(new URLSearchParams(stored).get('payload')).toBe(JSON.stringify({ pusher: { email: '[REDACTED]' }, ref: 'refs/heads/main' }));
    expect(new URLSearchParams(stored).get('note')).toBe('from [REDACTED]');
    // Untouched pairs as sent; a mask holding &, =, + or % stays inside its value.
    expect(stored).toContain('&keep=a%2Fb+c&');
    expect(new URLSearchParams(stored).get('plain')).toBe('&=+%');
    expect(out.entries[0]).toMatchObject({ kind: 'preset', target: 'email', count: 4 });
  });

  it('match ASCII in a body that is not UTF-8 and keep its other bytes', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(' 4111111111111111 '), Buffer.from([0x80])]);
    const r = req({ body });
    redactRequest(r, new Map(), rules({ kind: 'preset', preset: 'card' }));
    expect(r.body).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(' [REDACTED] '), Buffer.from([0x80])]));
  });
});

describe('echoes of masked values', () => {
  it('a value a named rule masked is masked wherever else it shows (body, action output, the response built)', () => {
    const doc = { card: { cvc: '9876' }, note: 'pin 9876' };
    const r = req({
      content_type: 'application/json',
      headers: { 'x-api-key': ['key-123456'] },
      body: Buffer.from(JSON.stringify(doc)),
      custom_action_output: ['[1 set_variable] key=key-123456'],
      extra: { response: { content: 'echo 9876 key-123456' } },
    });
    const out = redactRequest(r, new Map(), rules({ kind: 'header', name: 'x-api-key' }, { kind: 'json', path: '$.card.cvc' }));
    expect(JSON.parse(r.body.toString())).toEqual({ card: { cvc: '[REDACTED]' }, note: 'pin [REDACTED]' });
    expect(r.custom_action_output).toEqual(['[1 set_variable] key=[REDACTED]']);
    expect(r.extra.response).toEqual({ content: 'echo [REDACTED] [REDACTED]' });
    expect(out.entries.map((e) => e.count)).toEqual([3, 3]);
  });

  it('an echo written percent-encoded is masked too', () => {
    const r = req({
      content_type: 'application/json',
      headers: { 'x-api-key': ['key 12/34+56'] },
      body: Buffer.from('{"a":"?k=key%2012%2F34%2B56","b":"?k=key+12%2F34%2B56"}'),
    });
    redactRequest(r, new Map(), rules({ kind: 'header', name: 'x-api-key' }));
    expect(r.body.toString()).toBe('{"a":"?k=[REDACTED]","b":"?k=[REDACTED]"}');
  });

  it('short values are not searched for elsewhere', () => {
    const r = req({ headers: { 'x-n': ['1'] }, body: Buffer.from('a1b1') });
    redactRequest(r, new Map(), rules({ kind: 'header', name: 'x-n' }));
    expect(r.body.toString()).toBe('a1b1');
  });
});

describe('compiling and attribution', () => {
  it('rules of a redact action say which action they came from', () => {
    const r = req({ headers: { 'x-k': ['v'] } });
    const list: RedactionRule[] = [{ kind: 'header', name: 'x-k', actions_see_original: true }];
    const out = redactRequest(r, new Map(), compileRules(list, '[gone]', 'action', 'a-1'));
    expect(out.entries).toEqual([{ source: 'action', rule: 0, action: 'a-1', kind: 'header', target: 'x-k', count: 1 }]);
    expect(r.headers['x-k']).toEqual(['[gone]']);
  });

  it('appends to the redactions already recorded', () => {
    const r = req({ headers: { a: ['1'], b: ['2'] } });
    redactRequest(r, new Map(), rules({ kind: 'header', name: 'a' }));
    redactRequest(r, new Map(), compileRules([{ kind: 'header', name: 'b' }], '[R]', 'action', 'x'));
    expect((r.extra.redactions as unknown[]).length).toBe(2);
  });
});

describe('settings validation', () => {
  const issues = (v: unknown) => {
    const p = RedactionSettingsSchema.safeParse(v);
    return p.success ? [] : p.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('names a bad regex, a bad JSONPath, an unknown preset and an unknown kind', () => {
    expect(issues({ rules: [{ kind: 'regex', pattern: '(' }] })[0]).toMatch(/^rules\.0\.pattern: Invalid regular expression/);
    expect(issues({ rules: [{ kind: 'regex', pattern: 'a', flags: 'g' }] })[0]).toMatch(/^rules\.0\.flags/);
    expect(issues({ rules: [{ kind: 'json', path: 'password' }] })[0]).toMatch(/^rules\.0\.path: Invalid JSONPath/);
    expect(issues({ rules: [{ kind: 'preset', preset: 'ssn' }] })[0]).toMatch(/^rules\.0\.preset: .*bearer.*card.*email/);
    expect(issues({ rules: [{ kind: 'cookie', name: 'a' }] })[0]).toMatch(/^rules\.0\.kind/);
    expect(issues({ rules: [{ kind: 'header' }] })[0]).toMatch(/^rules\.0\.name/);
  });
  it('fills the defaults', () => {
    expect(RedactionSettingsSchema.parse({ rules: [{ kind: 'header', name: 'a' }] })).toEqual({ replacement: '[REDACTED]', rules: [{ kind: 'header', name: 'a', actions_see_original: true }] });
  });
});
