// Shared search fixtures: the storage contract suite inserts `searchSamples` into every adapter
// and checks that each of `searchCases` returns exactly `expect` (as a set of uuids), with date
// math resolved against `searchNow`; every query in `searchErrors` must be rejected.
import type { RequestRecord } from '../types.js';

/** 2024-06-15 12:00:00 UTC (a Saturday). Pass it as the filter's `now`. */
export const searchNow = Date.UTC(2024, 5, 15, 12, 0, 0);

export const searchToken = '9d1e7a52-3b8c-4f0e-9a61-5c2f8b7d4e10';

const U = (n: number): string => `00000000-0000-4000-8000-00000000000${n}`;
export const S1 = U(1);
export const S2 = U(2);
export const S3 = U(3);
export const S4 = U(4);
export const S5 = U(5);
export const S6 = U(6);
export const S7 = U(7);

const at = (iso: string): number => Date.parse(`${iso}Z`);

function sample(n: number, fields: Partial<RequestRecord> & { created_at: number }): Partial<RequestRecord> {
  const body = fields.body ?? Buffer.alloc(0);
  return {
    uuid: U(n),
    token_id: searchToken,
    type: 'web',
    team_id: null,
    ip: '192.0.2.1',
    hostname: 'hook.test',
    method: 'GET',
    user_agent: '',
    url: `https://hook.test/${searchToken}`,
    content_type: null,
    size: body.length,
    query: null,
    headers: {},
    form: null,
    files: [],
    custom_action_output: [],
    custom_action_errors: [],
    time: 0.1,
    note: null,
    // Microseconds, in capture order.
    sorting: fields.created_at * 1000 + n,
    updated_at: fields.created_at,
    extra: {},
    ...fields,
    body,
  };
}

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

export const searchSamples: Array<Partial<RequestRecord>> = [
  sample(1, {
    method: 'GET',
    ip: '127.0.0.1',
    user_agent: 'curl/8.4.0',
    url: `https://hook.test/${searchToken}?action=create&page=2`,
    query: { action: 'create', page: '2' },
    headers: { 'user-agent': ['curl/8.4.0'], 'x-trace': ['abc-123', 'def-456'] },
    time: 0.01,
    note: 'first note',
    created_at: at('2024-06-15T11:00:00'),
    extra: { country: 'Germany', country_code: 'DE', city: 'Berlin' },
  }),
  sample(2, {
    method: 'POST',
    ip: '127.0.0.12',
    user_agent: 'Paw/3.3.5 (Macintosh; OS X/11.6.2) GCDHTTPRequest',
    url: `https://hook.test/${searchToken}/201`,
    content_type: 'application/json',
    body: text('{"first_name":"Arch","last_name":"Weber"}'),
    headers: { 'user-agent': ['Paw/3.3.5 (Macintosh; OS X/11.6.2) GCDHTTPRequest'], 'content-type': ['application/json'] },
    custom_action_output: ['Hello World'],
    custom_action_errors: ['2998fec5-ffb6-4a47-8ef4-425516f44201'],
    time: 0.5,
    httpVersion: '2',
    created_at: at('2024-06-14T09:30:00'),
    updated_at: at('2024-06-15T11:30:00'),
  }),
  sample(3, {
    method: 'PUT',
    team_id: 3,
    content_type: 'text/plain',
    body: text('example payload 100% done_ok'),
    headers: { 'content-type': ['text/plain'] },
    time: 0.2,
    note: 'Important: check',
    created_at: at('2024-06-01T10:00:00'),
  }),
  sample(4, {
    method: 'POST',
    user_agent: 'Mozilla/5.0 (X11)',
    content_type: 'multipart/form-data; boundary=xyz',
    body: text('test 1000 doneXok'),
    size: 437,
    headers: { 'user-agent': ['Mozilla/5.0 (X11)'], 'content-type': ['multipart/form-data; boundary=xyz'] },
    form: { status: 'example', tags: ['red', 'blue'] },
    files: [{ id: 'f-0001', name: 'file', filename: 'example.png', size: 420, content_type: 'image/png' }],
    time: 1.5,
    httpVersion: '1.0',
    created_at: at('2024-06-10T08:00:00'),
  }),
  sample(5, {
    method: 'DELETE',
    team_id: 7,
    ip: '2001:db8::1',
    url: `https://hook.test/${searchToken}?q=a*b&debug=`,
    query: { q: 'a*b', debug: '' },
    headers: { 'x-special': ['He said "hi" \\ back'] },
    time: 0.05,
    created_at: at('2023-12-31T23:59:59'),
    extra: { country: 'Denmark', country_code: 'DK', region: 'Hovedstaden', city: 'Copenhagen' },
  }),
  sample(6, {
    type: 'email',
    method: '',
    ip: '198.51.100.7',
    hostname: 'mx.example.net',
    url: '',
    body: text('Subject: Greetings\r\n\r\nHello Bob'),
    headers: { subject: ['Greetings'], from: ['Alice <alice@example.com>'] },
    time: 0.3,
    created_at: at('2024-06-15T00:00:00'),
    extra: {
      sender: 'alice@example.com',
      message_id: 'msg-42@example.com',
      destinations: [`${searchToken}@emailhook.test`],
      text_content: 'Hello Bob',
      html_content: '<p>Hello <b>Bob</b></p>',
      checks: { spf: true, dkim: false },
    },
  }),
  sample(7, {
    type: 'dns',
    method: '',
    ip: '203.0.113.9',
    hostname: 'ns.example.net',
    url: '',
    time: 0.001,
    created_at: at('2024-06-15T11:59:00'),
    extra: { dns: { name: `foo.${searchToken}.dnshook.test`, type: 'A' } },
  }),
];

const ALL = [S1, S2, S3, S4, S5, S6, S7];

export const searchCases: Array<{ query: string; expect: string[] }> = [
  // Bare terms and content (case-insensitive substring; LIKE/regex specials are literal).
  { query: 'Weber', expect: [S2] },
  { query: 'content:weber', expect: [S2] },
  { query: 'content:"100%"', expect: [S3] },
  { query: 'content:done_ok', expect: [S3] },
  { query: 'content:done?ok', expect: [S3, S4] },
  { query: 'content:"done?ok"', expect: [] },
  { query: 'content:exam*load', expect: [S3] },
  { query: 'content:"first_name\\":\\"Arch"', expect: [S2] },
  { query: 'content:*', expect: [S2, S3, S4, S6] },
  // Exact fields (whole value, case-insensitive).
  { query: 'method:GET', expect: [S1] },
  { query: 'method:get', expect: [S1] },
  { query: 'method:P*', expect: [S2, S3, S4] },
  { query: 'ip:127.0.0.1', expect: [S1] },
  { query: `uuid:${S3}`, expect: [S3] },
  { query: `token_id:${searchToken}`, expect: ALL },
  { query: 'type:email', expect: [S6] },
  { query: 'country_code:dk', expect: [S5] },
  { query: 'country_code:d', expect: [] },
  // The HTTP version: web captures stored without one (S1, S3, S5) are HTTP/1.1; e-mail and DNS have none.
  { query: 'http_version:2', expect: [S2] },
  { query: 'http_version:1.1', expect: [S1, S3, S5] },
  { query: 'http_version:1.*', expect: [S1, S3, S4, S5] },
  { query: 'http_version:(1.0 OR 2)', expect: [S2, S4] },
  { query: '_exists_:http_version', expect: [S1, S2, S3, S4, S5] },
  { query: 'NOT http_version:1.1', expect: [S2, S4, S6, S7] },
  // Boolean operators, precedence, grouping.
  { query: 'method:PUT OR method:POST', expect: [S2, S3, S4] },
  { query: 'type:web AND method:POST', expect: [S2, S4] },
  { query: 'method:(GET OR DELETE)', expect: [S1, S5] },
  { query: '(method:PUT) AND (content:example OR content:test) AND NOT (content:foobar)', expect: [S3] },
  { query: '-method:GET type:web', expect: [S2, S3, S4, S5] },
  { query: '!type:web', expect: [S6, S7] },
  { query: '-(type:web OR type:dns)', expect: [S6] },
  { query: 'method:GET OR method:POST content:weber', expect: [S1, S2] },
  { query: 'method:GET && note:first || type:email', expect: [S1, S6] },
  { query: 'type:web AND NOT (method:GET OR method:POST)', expect: [S3, S5] },
  { query: 'NOT _exists_:note', expect: [S2, S4, S5, S6, S7] },
  // Nested fields.
  { query: 'headers.user-agent:"Paw/3.3.5 (Macintosh; OS X/11.6.2) GCDHTTPRequest"', expect: [S2] },
  { query: 'headers.x-trace:def', expect: [S1] },
  { query: 'headers.X-Special:"said \\"hi\\" \\\\ back"', expect: [S5] },
  { query: 'headers.content-type:json', expect: [S2] },
  { query: 'query.action:create', expect: [S1] },
  { query: 'query.q:"a*b"', expect: [S5] },
  { query: '_exists_:query.action', expect: [S1] },
  { query: '_exists_:query.debug', expect: [S5] },
  { query: 'request.status:example', expect: [S4] },
  { query: 'request.tags:blue', expect: [S4] },
  { query: 'files.file:example.png', expect: [S4] },
  { query: 'files.file:*.png', expect: [S4] },
  { query: 'files.other:example', expect: [] },
  { query: '_exists_:files.file', expect: [S4] },
  { query: '_exists_:files', expect: [S4] },
  { query: 'files:*.png', expect: [S4] },
  { query: 'files:other', expect: [] },
  { query: 'checks.spf:true', expect: [S6] },
  { query: 'checks.dkim:false', expect: [S6] },
  { query: 'checks.spf:false', expect: [] },
  { query: 'dns.type:A', expect: [S7] },
  { query: 'dns.name:dnshook', expect: [S7] },
  // Other text fields.
  { query: '_exists_:custom_action_errors', expect: [S2] },
  { query: 'custom_action_output:"hello world"', expect: [S2] },
  { query: 'url:"action=create"', expect: [S1] },
  { query: 'user_agent:curl*', expect: [S1] },
  { query: 'hostname:hook.test', expect: [S1, S2, S3, S4, S5] },
  { query: 'note:important', expect: [S3] },
  { query: 'country:den*', expect: [S5] },
  { query: '_exists_:region', expect: [S5] },
  { query: 'sender:alice', expect: [S6] },
  { query: 'destinations:emailhook', expect: [S6] },
  { query: 'text_content:bob', expect: [S6] },
  { query: 'html_content:"<b>bob</b>"', expect: [S6] },
  { query: 'message_id:"msg-42@example.com"', expect: [S6] },
  // Numbers.
  { query: 'size:[1 TO 50]', expect: [S2, S3, S6] },
  { query: 'size:{0 TO *}', expect: [S2, S3, S4, S6] },
  { query: 'size:>=100', expect: [S4] },
  { query: 'time:<0.1', expect: [S1, S5, S7] },
  { query: 'team_id:7', expect: [S5] },
  { query: '_exists_:team_id', expect: [S3, S5] },
  { query: 'sorting:[* TO *]', expect: ALL },
  // Dates (searchNow = 2024-06-15 12:00:00).
  { query: 'created_at:["2024-06-01 00:00:00" TO "2024-06-14 23:59:59"]', expect: [S2, S3, S4] },
  { query: 'created_at:["2024-06-14 00:00:00" TO *]', expect: [S1, S2, S6, S7] },
  { query: 'created_at:[* TO now-14d]', expect: [S3, S5] },
  { query: 'created_at:[now/d TO *]', expect: [S1, S6, S7] },
  { query: 'created_at:{"2024-06-15 00:00:00" TO *]', expect: [S1, S7] },
  { query: 'created_at:2024-06-14', expect: [S2] },
  { query: 'created_at:[2024.05.15||+1M/d TO *]', expect: [S1, S6, S7] },
  { query: 'created_at:<2024', expect: [S5] },
  { query: 'created_at:[now-1h TO now]', expect: [S1, S7] },
  { query: 'created_at:{now-1h TO now]', expect: [S7] },
  { query: 'updated_at:>now-1h', expect: [S2, S7] },
];

export const searchErrors: string[] = [
  '(method:GET',
  'method:GET)',
  'method:GET AND',
  'OR method:GET',
  'method:GET OR OR method:POST',
  'NOT',
  '()',
  'content:"unterminated',
  'content:""',
  'method:"GET"x',
  'method:',
  'created_at:[2022-01-01 2022-12-31]',
  'created_at:[]',
  'created_at:[ TO *]',
  'created_at:[2022-01-01 TO ]',
  'created_at:[2022-01-01 TO 2022-12-31',
  'created_at:[garbage TO *]',
  'created_at:yesterday',
  'size:abc',
  'hostname:[a TO b]',
  'foo:bar',
  'Method:GET',
  'headers.:x',
  'headers.a..b:x',
  '_exists_:nope',
  '_exists_:$where',
  `${'('.repeat(33)}a${')'.repeat(33)}`,
  'a '.repeat(2049),
];
