// End to end: a token with redaction rules, through the running service. What was masked never
// shows again (request list, one request, raw, CSV and HAR exports, SSE, socket.io, e-mail), while
// the Custom Actions of the capture saw the originals.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { io as ioV4 } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../core/actions/module.js';
import { createMailModule } from '../core/mail/module.js';
import { createRealtimeModule } from '../core/realtime/module.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { openSse, type SseClient } from './helpers/sse.js';
import { MAIL_INFO } from '../core/service-keys.js';

const DOMAIN = 'mail.redaction.test';
const BEARER = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.sig_123';
const CARD = '4111 1111 1111 1111';
const EMAIL = 'jane.doe@customer.example';
const JSON_SECRET = 'db-password-8c1f2e';
const API_KEY = 'ak_live_5d0e77b1';
const SIG = 'query-signature-42ab';
const ORIGINALS = [BEARER, CARD, CARD.replace(/ /g, ''), EMAIL, JSON_SECRET, API_KEY, SIG];

const RULES = [
  { kind: 'preset', preset: 'bearer' },
  { kind: 'preset', preset: 'card' },
  { kind: 'preset', preset: 'email' },
  { kind: 'json', path: '$.db.password' },
  { kind: 'header', name: 'X-Api-Key', replacement: '[key]' },
  { kind: 'query', name: 'sig' },
];

let s: TestServer;
const sse: SseClient[] = [];
const sockets: Array<{ close(): unknown }> = [];

function expectNoOriginal(text: string, where: string): void {
  for (const o of ORIGINALS) expect(text.includes(o) || text.includes(encodeURIComponent(o)), `${where} shows ${o}`).toBe(false);
}

beforeAll(async () => {
  s = await startTestServer({ EMAIL_DOMAIN: DOMAIN, SMTP_AUTH_CHECKS: 'false' }, { modules: [createActionsModule(), createRealtimeModule({ sse: { heartbeatMs: 50 } }), createMailModule()] });
});

afterAll(async () => {
  for (const c of sse) c.close();
  for (const c of sockets) c.close();
  await s?.close();
});

describe('token redaction settings', () => {
  it('are validated with 422s naming the rule and field', async () => {
    const bad = [
      [{ kind: 'regex', pattern: '(unclosed' }, 'redaction.rules.0.pattern', /Invalid regular expression/],
      [{ kind: 'json', path: 'password' }, 'redaction.rules.0.path', /Invalid JSONPath/],
      [{ kind: 'preset', preset: 'ssn' }, 'redaction.rules.0.preset', /bearer.*card.*email/],
      [{ kind: 'cookie', name: 'x' }, 'redaction.rules.0.kind', /./],
    ] as const;
    for (const [rule, field, message] of bad) {
      const r = await s.call('POST', '/token', { json: { redaction: { rules: [rule] } } });
      expect(r.status, JSON.stringify(rule)).toBe(422);
      expect(r.data.errors[field], `${JSON.stringify(r.data.errors)}`).toBeDefined();
      expect(r.data.errors[field].join(' ')).toMatch(message);
    }
    // A bad update leaves the stored rules as they were.
    const t = await s.token({ redaction: { rules: [{ kind: 'header', name: 'a' }] } });
    const put = await s.call('PUT', `/token/${t.uuid}`, { json: { redaction: { rules: [{ kind: 'regex', pattern: '[' }] } } });
    expect(put.status).toBe(422);
    const got = await s.call('GET', `/token/${t.uuid}`);
    expect(got.data.redaction).toEqual({ replacement: '[REDACTED]', rules: [{ kind: 'header', name: 'a', actions_see_original: true }] });
  });

  it('are set, shown and removed through PUT /token', async () => {
    const t = await s.token();
    expect(t.redaction).toBeNull();
    const put = await s.call('PUT', `/token/${t.uuid}`, { json: { redaction: { rules: [{ kind: 'preset', preset: 'email' }], replacement: '***' } } });
    expect(put.status).toBe(200);
    expect(put.data.redaction).toEqual({ replacement: '***', rules: [{ kind: 'preset', preset: 'email', actions_see_original: true }] });
    await s.call('POST', `/${t.uuid}`, { body: `mail ${EMAIL}` });
    const list = await s.call('GET', `/token/${t.uuid}/requests`);
    expect(list.data.data[0].content).toBe('mail ***');
    expect((await s.call('PUT', `/token/${t.uuid}`, { json: { redaction: null } })).data.redaction).toBeNull();
    await s.call('POST', `/${t.uuid}`, { body: `mail ${EMAIL}` });
    const after = await s.call('GET', `/token/${t.uuid}/requests?sorting=newest`);
    expect(after.data.data[0].content).toBe(`mail ${EMAIL}`);
  });
});

describe('the API document', () => {
  it('/openapi.json describes the redaction setting and the redactions record', async () => {
    const r = await s.call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    const doc = JSON.stringify(r.data);
    const post = r.data.paths['/token'].post;
    expect(JSON.stringify(post)).toContain('redaction');
    expect(doc).toContain('actions_see_original');
    expect(doc).toContain('redactions');
  });
});

describe('a capture of a token with redaction rules', () => {
  it('never shows a masked value in the API, raw, exports or realtime, while the actions saw the originals', async () => {
    const t = await s.token({ actions: true, redaction: { rules: RULES } });
    // The chain answers with what it saw: the originals, proving the actions got them.
    const action = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: { type: 'modify_response', parameters: { content: 'saw $request.header.authorization$ | $request.header.x-api-key$ | $request.query.sig$ | $request.content$' } },
    });
    expect(action.status, action.text).toBe(200);

    const events = await openSse(`${s.url}/token/${t.uuid}/events`);
    sse.push(events);
    const socket = ioV4(s.url, { reconnection: false });
    sockets.push(socket);
    const subscribed = new Promise((resolve) => socket.once('subscribed', resolve));
    socket.emit('subscribe', { channel: `private-token.${t.uuid}`, auth: { headers: {} } });
    await subscribed;
    const socketEvent = new Promise<any[]>((resolve) => socket.once('request.created', (...args: any[]) => resolve(args)));

    const body = JSON.stringify({ db: { password: JSON_SECRET, host: 'db1' }, payment: { card: CARD }, contact: EMAIL, note: 'keep me' });
    const capture = await s.call('POST', `/${t.uuid}/hook?sig=${SIG}&page=2`, {
      body,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${BEARER}`, 'X-Api-Key': API_KEY },
    });
    expect(capture.status).toBe(200);
    // What the actions saw went back to the sender (it is not stored).
    for (const o of [BEARER, API_KEY, SIG, JSON_SECRET, CARD, EMAIL]) expect(capture.text).toContain(o);
    const id = capture.headers.get('x-request-id')!;

    const one = await s.call('GET', `/token/${t.uuid}/request/${id}`);
    expect(one.status).toBe(200);
    expectNoOriginal(one.text, 'GET /token/{id}/request/{id}');
    expect(one.data.headers.authorization).toEqual(['Bearer [REDACTED]']);
    expect(one.data.headers['x-api-key']).toEqual(['[key]']);
    expect(one.data.query).toEqual({ sig: '[REDACTED]', page: '2' });
    expect(one.data.url).toMatch(/\/hook\?sig=%5BREDACTED%5D&page=2$/);
    expect(JSON.parse(one.data.content)).toEqual({ db: { password: '[REDACTED]', host: 'db1' }, payment: { card: '[REDACTED]' }, contact: '[REDACTED]', note: 'keep me' });
    // Which rule masked what, never the value.
    expect(one.data.redactions).toEqual(
      expect.arrayContaining([
        { source: 'token', rule: 0, kind: 'preset', target: 'bearer', count: expect.any(Number) },
        { source: 'token', rule: 4, kind: 'header', target: 'x-api-key', count: expect.any(Number) },
        { source: 'token', rule: 5, kind: 'query', target: 'sig', count: expect.any(Number) },
        { source: 'token', rule: 3, kind: 'json', target: '$.db.password', count: expect.any(Number) },
      ]),
    );
    expect(one.data.size).toBe(Buffer.byteLength(one.data.content));
    // The answer the chain built is stored with the request, masked too.
    expect(one.data.response.body).toContain('saw Bearer [REDACTED] | [key] | [REDACTED] |');

    const list = await s.call('GET', `/token/${t.uuid}/requests`);
    expectNoOriginal(list.text, 'GET /token/{id}/requests');
    expect(list.data.data[0].uuid).toBe(id);

    const raw = await s.call('GET', `/token/${t.uuid}/request/${id}/raw`);
    expect(raw.status).toBe(200);
    expectNoOriginal(raw.text, 'raw');
    expect(raw.text).toContain('keep me');

    const csv = await s.call('GET', `/token/${t.uuid}/requests/export?format=csv`);
    expect(csv.status).toBe(200);
    expectNoOriginal(csv.text, 'CSV export');
    expect(csv.text).toContain(id);
    const har = await s.call('GET', `/token/${t.uuid}/requests/export?format=har`);
    expect(har.status).toBe(200);
    expectNoOriginal(har.text, 'HAR export');
    expect(har.text).toContain('keep me');

    const e = await events.waitFor((ev) => ev.event === 'request.created');
    expectNoOriginal(e.data, 'SSE request.created');
    expect(e.json.uuid).toBe(id);
    const [, payload] = await socketEvent;
    expectNoOriginal(JSON.stringify(payload), 'socket.io request.created');
    expect(payload.request.uuid).toBe(id);
  });

  it('a GitHub form delivery with the email preset keeps no trace of an address, plain or encoded, in the API, exports or the database and its WAL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redaction-disk-'));
    const disk = await startTestServer({ DATA_DIR: dir }, { modules: [createActionsModule()] });
    try {
      const t = await disk.token({ actions: true, redaction: { rules: [{ kind: 'preset', preset: 'email' }] } });
      // The chain's answer holds what a JavaScript action saw; it is stored with the request.
      const js = await disk.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'javascript', parameters: { script: 'respond(request.content)' } } });
      expect(js.status, js.text).toBe(200);
      const noreply = '21031067+Codertocat@users.noreply.github.com';
      const payload = {
        ref: 'refs/heads/main',
        pusher: { name: 'Codertocat', email: noreply },
        head_commit: { message: 'Update README.md', author: { name: 'Codertocat', email: noreply }, committer: { name: 'GitHub', email: 'noreply@github.com' } },
      };
      // As GitHub sends a delivery of content type application/x-www-form-urlencoded.
      const body = 'payload=' + encodeURIComponent(JSON.stringify(payload));
      const capture = await disk.call('POST', `/${t.uuid}`, {
        body,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-GitHub-Event': 'push', 'User-Agent': 'GitHub-Hookshot/7a3a6d5' },
      });
      expect(capture.status).toBe(200);
      // The action saw the original body (percent-encoded, as sent).
      expect(capture.text).toBe(body);
      const traces = [noreply, 'noreply@github.com', 'Codertocat@', 'Codertocat%40', encodeURIComponent(noreply), 'noreply%40github.com'];
      const expectNoAddress = (text: string, where: string) => {
        for (const trace of traces) expect(text.includes(trace), `${where} shows ${trace}`).toBe(false);
      };

      const id = capture.headers.get('x-request-id')!;
      const one = await disk.call('GET', `/token/${t.uuid}/request/${id}`);
      expectNoAddress(one.text, 'GET /token/{id}/request/{id}');
      const stored = new URLSearchParams(one.data.content).get('payload')!;
      expect(JSON.parse(stored)).toEqual({
        ...payload,
        pusher: { name: 'Codertocat', email: '[REDACTED]' },
        head_commit: { ...payload.head_commit, author: { name: 'Codertocat', email: '[REDACTED]' }, committer: { name: 'GitHub', email: '[REDACTED]' } },
      });
      expect(JSON.parse(one.data.request.payload).pusher.email).toBe('[REDACTED]');
      const raw = await disk.call('GET', `/token/${t.uuid}/request/${id}/raw`);
      expectNoAddress(raw.text, 'raw');
      expect(raw.text).toContain(encodeURIComponent('refs/heads/main'));
      const csv = await disk.call('GET', `/token/${t.uuid}/requests/export?format=csv`);
      expect(csv.status).toBe(200);
      expectNoAddress(csv.text, 'CSV export');
      expect(csv.text).toContain(id);

      // On disk: the database and its write-ahead log, while the service runs and after it stops.
      const files = () => ['capture.sqlite', 'capture.sqlite-wal'].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f));
      const onDisk = () =>
        files()
          .map((f) => fs.readFileSync(f).toString('latin1'))
          .join('');
      // The body is on disk as written (so a trace would be found), the addresses are not.
      expect(onDisk()).toContain(encodeURIComponent('"refs/heads/main"'));
      expectNoAddress(onDisk(), 'the database or its WAL');
      await disk.close();
      expectNoAddress(onDisk(), 'the database or its WAL after shutdown');
    } finally {
      await disk.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with actions_see_original false, the actions see the masked value too', async () => {
    const t = await s.token({ actions: true, redaction: { rules: [{ kind: 'header', name: 'x-api-key', actions_see_original: false }] } });
    await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'modify_response', parameters: { content: 'saw $request.header.x-api-key$' } } });
    const capture = await s.call('POST', `/${t.uuid}`, { body: 'x', headers: { 'X-Api-Key': API_KEY } });
    expect(capture.text).toBe('saw [REDACTED]');
  });

  it('a redact action masks from within the chain, only when its condition passed', async () => {
    const t = await s.token({ actions: true });
    const cond = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: { type: 'condition', parameters: { input: '$request.header.x-env$', operator: 'eq', value: 'live', action: 'noop' } },
    });
    expect(cond.status, cond.text).toBe(200);
    const red = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: {
        type: 'redact',
        condition: cond.data.uuid,
        parameters: {
          rules: [
            { kind: 'json', path: '$..token' },
            { kind: 'preset', preset: 'card' },
          ],
        },
      },
    });
    expect(red.status, red.text).toBe(200);
    // An action after the redact one still sees the original.
    await s.call('POST', `/token/${t.uuid}/actions`, { json: { type: 'modify_response', parameters: { content: 'saw $request.content$' } } });

    const body = JSON.stringify({ auth: { token: 'tok-abcdef-123' }, card: CARD });
    const live = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'application/json', 'X-Env': 'live' } });
    expect(live.text).toBe(`saw ${body}`);
    const test = await s.call('POST', `/${t.uuid}`, { body, headers: { 'Content-Type': 'application/json', 'X-Env': 'test' } });

    const stored = await s.call('GET', `/token/${t.uuid}/request/${live.headers.get('x-request-id')}`);
    expect(JSON.parse(stored.data.content)).toEqual({ auth: { token: '[REDACTED]' }, card: '[REDACTED]' });
    expect(stored.data.redactions).toEqual([
      // Each twice: in the body, and in the response the last action built from it (stored with the request).
      { source: 'action', action: red.data.uuid, rule: 0, kind: 'json', target: '$..token', count: 2 },
      { source: 'action', action: red.data.uuid, rule: 1, kind: 'preset', target: 'card', count: 2 },
    ]);
    const raw = await s.call('GET', `/token/${t.uuid}/request/${live.headers.get('x-request-id')}/raw`);
    expect(raw.text).not.toContain('tok-abcdef-123');
    // The condition did not pass: nothing masked.
    const untouched = await s.call('GET', `/token/${t.uuid}/request/${test.headers.get('x-request-id')}`);
    expect(untouched.data.content).toBe(body);
  });

  it('an e-mail is masked in its fields and its raw message', async () => {
    const t = await s.token({
      redaction: {
        rules: [
          { kind: 'preset', preset: 'card' },
          { kind: 'header', name: 'subject' },
        ],
      },
    });
    const port = s.provided.get(MAIL_INFO)!.port!;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ from: 'a@sender.test', to: `${t.uuid}@${DOMAIN}`, subject: 'Order 77 secret subject', text: `card ${CARD} thanks`, html: `<p>card ${CARD}</p>` });
    } finally {
      transport.close();
    }
    const list = await s.call('GET', `/token/${t.uuid}/requests`);
    const mail = list.data.data[0];
    expect(mail.type).toBe('email');
    expect(mail.text_content).toContain('card [REDACTED] thanks');
    expect(mail.html_content).toContain('card [REDACTED]');
    expect(mail.headers.subject).toEqual(['[REDACTED]']);
    expect(list.text).not.toContain('secret subject');
    expectNoOriginal(list.text, 'e-mail in the request list');
    const raw = await s.call('GET', `/token/${t.uuid}/request/${mail.uuid}/raw`);
    expect(raw.text).not.toContain('secret subject');
    expectNoOriginal(raw.text, 'raw e-mail');
  });
});
