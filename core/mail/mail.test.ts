// End to end: real mail over SMTP (nodemailer as the client) to the running server, and what the
// API then shows. SPF/DKIM/DMARC are computed against a fixed DNS (no network).
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionsModule } from '../actions/module.js';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { createMailModule } from './module.js';
import type { DnsResolver } from './checks.js';
import { decodeWords, readHeaders } from './message.js';
import { MAIL_INFO } from '../service-keys.js';

const DOMAIN = 'mail.test.internal';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC_B64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

/** The DNS the checks see: sender.test authorises 127.0.0.1 and publishes a DKIM key and DMARC. */
const ZONE: Record<string, string[]> = {
  'TXT sender.test': ['v=spf1 ip4:127.0.0.1 -all'],
  'TXT sel._domainkey.sender.test': [`v=DKIM1; k=rsa; p=${PUBLIC_B64}`],
  'TXT _dmarc.sender.test': ['v=DMARC1; p=reject'],
  'TXT elsewhere.test': ['v=spf1 ip4:192.0.2.1 -all'],
};
const fakeDns: DnsResolver = async (name, rrtype) => {
  if (name.endsWith('dns-down.test')) throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
  const rr = ZONE[`${rrtype} ${name.toLowerCase()}`];
  if (!rr) throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: 'ENOTFOUND' });
  return rrtype === 'TXT' ? rr.map((r) => [r]) : rr;
};

let s: TestServer;
let port: number;

function client(extra: Record<string, unknown> = {}) {
  return nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...extra });
}

async function send(mail: Mail.Options, extra: Record<string, unknown> = {}) {
  const transport = client(extra);
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

async function sendError(
  mail: Mail.Options,
  extra: Record<string, unknown> = {},
): Promise<{ responseCode?: number; response?: string; message: string; rejectedErrors?: Array<{ responseCode: number; response: string }> }> {
  try {
    await send(mail, extra);
  } catch (err) {
    return err as never;
  }
  throw new Error('expected the server to refuse the message');
}

async function requests(tokenId: string, query = ''): Promise<any[]> {
  const r = await s.call('GET', `/token/${tokenId}/requests?sorting=oldest${query ? `&query=${encodeURIComponent(query)}` : ''}`);
  expect(r.status).toBe(200);
  return r.data.data;
}

const addr = (t: Record<string, any>) => `${t.uuid}@${DOMAIN}`;

beforeAll(async () => {
  s = await startTestServer({ EMAIL_DOMAIN: DOMAIN, SMTP_MAX_MESSAGE_BYTES: String(256 * 1024), SMTP_LOOP_LIMIT: '3' }, { modules: [createMailModule({ resolver: fakeDns }), createActionsModule()] });
  port = s.provided.get(MAIL_INFO)!.port!;
});

afterAll(async () => {
  await s?.close();
});

describe('e-mail capture', () => {
  it('stores a message with text, HTML and attachments, with every field', async () => {
    const t = await s.token();
    const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const info = await send(
      {
        from: 'Alice Example <alice@sender.test>',
        to: addr(t),
        cc: 'someone@else.test',
        subject: 'Grüße from the test',
        text: 'Hello in plain text',
        html: '<p>Hello in <b>HTML</b></p>',
        headers: { 'X-Custom': 'yes' },
        attachments: [
          { filename: 'notes.txt', content: 'attached text' },
          { filename: 'data.bin', content: binary, contentType: 'application/octet-stream' },
        ],
      },
      { dkim: { domainName: 'sender.test', keySelector: 'sel', privateKey: PRIVATE_PEM } },
    );
    expect(info.accepted).toEqual([addr(t)]);
    expect(info.rejected).toEqual(['someone@else.test']);
    expect(info.response).toMatch(/^250 .*Message captured as [0-9a-f-]{36}/);

    const [r] = await requests(t.uuid);
    expect(r).toMatchObject({
      type: 'email',
      token_id: t.uuid,
      ip: '127.0.0.1',
      method: 'SMTP',
      hostname: DOMAIN,
      sender: 'alice@sender.test',
      message_id: info.messageId.replace(/^<|>$/g, ''),
      subject: 'Grüße from the test',
      destinations: [addr(t)],
      text_content: 'Hello in plain text',
      html_content: '<p>Hello in <b>HTML</b></p>',
      checks: { spf: true, dkim: true, dmarc: true, spam: null, virus: null },
      checks_detail: { spf: 'pass', dkim: 'pass', dmarc: 'pass', spam: 'not scanned', virus: 'not scanned' },
      tls: false,
    });
    expect(r.headers['x-custom']).toEqual(['yes']);
    expect(r.headers.subject).toEqual(['Grüße from the test']);
    expect(r.headers.from).toEqual(['Alice Example <alice@sender.test>']);
    expect(r.headers['dkim-signature']).toHaveLength(1);
    expect(r.content).toContain('DKIM-Signature:');
    expect(r.size).toBe(Buffer.byteLength(r.content));

    // raw is the EML as received, as message/rfc822.
    const raw = await s.call('GET', `/token/${t.uuid}/request/${r.uuid}/raw`);
    expect(raw.headers.get('content-type')).toMatch(/^message\/rfc822/);
    expect(raw.text).toBe(r.content);
    expect(raw.text).toMatch(/^DKIM-Signature: /);

    // Attachments are files, downloadable like uploads.
    expect(r.files).toEqual([
      { id: expect.any(String), name: 'notes.txt', filename: 'notes.txt', size: 13, content_type: 'text/plain' },
      { id: expect.any(String), name: 'data.bin', filename: 'data.bin', size: 256, content_type: 'application/octet-stream' },
    ]);
    const notes = await s.call('GET', `/token/${t.uuid}/request/${r.uuid}/download/${r.files[0].id}`);
    expect(notes.status).toBe(200);
    expect(notes.text).toBe('attached text');
    const bin = await s.call('GET', `/token/${t.uuid}/request/${r.uuid}/download/${r.files[1].id}`);
    expect(bin.headers.get('content-disposition')).toContain('filename="data.bin"');
    expect(bin.buf.equals(binary)).toBe(true);
  });

  it('derives text_content from the HTML when there is no text part', async () => {
    const t = await s.token();
    await send({ from: 'bob@elsewhere.test', to: addr(t), subject: 'html only', html: '<h1>Title</h1><p>Some <i>body</i> text</p>' });
    const [r] = await requests(t.uuid);
    expect(r.html_content.trimEnd()).toBe('<h1>Title</h1><p>Some <i>body</i> text</p>');
    expect(r.text_content).toMatch(/TITLE|Title/);
    expect(r.text_content).toContain('Some body text');
    // Not signed, and 127.0.0.1 is not an SPF-authorised sender of elsewhere.test: computed, not passed.
    expect(r.checks).toEqual({ spf: false, dkim: false, dmarc: false, spam: null, virus: null });
    expect(r.checks_detail).toMatchObject({ spf: 'fail', dkim: 'none' });
  });

  it('lists a plain-text message (no HTML part) with an empty html_content', async () => {
    const t = await s.token();
    await send({ from: 'bob@elsewhere.test', to: addr(t), subject: 'text only', text: 'Just words.' });
    const [r] = await requests(t.uuid);
    expect(r).toMatchObject({ type: 'email', subject: 'text only', sender: 'bob@elsewhere.test', destinations: [addr(t)], html_content: '' });
    expect(r.text_content.trimEnd()).toBe('Just words.');
    expect(r.message_id).toMatch(/@/);
  });

  it('lists a stored e-mail capture whose optional fields are null, leaving them out', async () => {
    const t = await s.token();
    const raw = Buffer.from('From: ann@example.test\r\nSubject: odd\r\n\r\nBody.\r\n');
    const now = Date.now();
    await s.services.store.requests.insert(
      {
        uuid: randomUUID(),
        token_id: t.uuid,
        type: 'email',
        team_id: null,
        ip: '192.0.2.7',
        hostname: DOMAIN,
        method: 'SMTP',
        user_agent: '',
        url: `mailto:${addr(t)}`,
        content_type: 'message/rfc822',
        body: raw,
        size: raw.length,
        query: null,
        headers: { subject: ['odd'] },
        form: null,
        files: [],
        custom_action_output: [],
        custom_action_errors: [],
        time: 0,
        note: null,
        sorting: now * 1000,
        created_at: now,
        updated_at: now,
        extra: { sender: 'ann@example.test', subject: 'odd', message_id: null, destinations: null, text_content: null, html_content: null, checks: null },
      },
      100,
    );
    const [r] = await requests(t.uuid);
    expect(r).toMatchObject({ type: 'email', sender: 'ann@example.test', subject: 'odd', content: raw.toString() });
    for (const key of ['message_id', 'destinations', 'text_content', 'html_content', 'checks']) expect(r).not.toHaveProperty(key);
    expect((await s.call('GET', `/token/${t.uuid}/request/${r.uuid}`)).status).toBe(200);
  });

  it('reports checks it cannot compute as unknown (null), never as passed', async () => {
    const t = await s.token();
    await send({ from: 'carol@dns-down.test', to: addr(t), subject: 'dns down', text: 'x' });
    const [r] = await requests(t.uuid);
    expect(r.checks.spf).toBeNull();
    expect(r.checks_detail.spf).toBe('temperror');
    expect(Object.values(r.checks)).not.toContain(true);
  });

  it("stores a message to several tokens once per token, with only that token's addresses", async () => {
    const premium = await s.user(true);
    const a = await s.token();
    const b = await s.token({ alias: `inbox-${randomUUID().slice(0, 8)}` }, premium.key);
    const info = await send({
      from: 'alice@sender.test',
      to: [addr(a), `${a.uuid}+orders@${DOMAIN}`, `${b.alias}@${DOMAIN.toUpperCase()}`],
      subject: 'to many',
      text: 'fan out',
    });
    expect(info.accepted).toHaveLength(3);
    const ra = await requests(a.uuid);
    const rb = (await s.call('GET', `/token/${b.uuid}/requests`, { key: premium.key })).data.data;
    expect(ra).toHaveLength(1);
    expect(ra[0].destinations).toEqual([addr(a), `${a.uuid}+orders@${DOMAIN}`]);
    expect(rb).toHaveLength(1);
    // (nodemailer lower-cases the domain; the server matches it case-insensitively either way)
    expect(rb[0].destinations).toEqual([`${b.alias}@${DOMAIN}`]);
    expect(ra[0].uuid).not.toBe(rb[0].uuid);
    expect(info.response).toContain(ra[0].uuid);
    expect(info.response).toContain(rb[0].uuid);
  });

  it('makes e-mail fields searchable', async () => {
    const t = await s.token();
    await send({ from: 'alice@sender.test', to: addr(t), subject: 'one', text: 'the quick brown fox' }, { dkim: { domainName: 'sender.test', keySelector: 'sel', privateKey: PRIVATE_PEM } });
    const second = await send({ from: 'bob@elsewhere.test', to: `${t.uuid}+two@${DOMAIN}`, subject: 'two', html: '<p>lazy dog</p>' });
    const subjects = async (q: string) => (await requests(t.uuid, q)).map((r) => r.subject);
    expect(await subjects('type:email')).toEqual(['one', 'two']);
    expect(await subjects('type:web')).toEqual([]);
    expect(await subjects('sender:alice')).toEqual(['one']);
    expect(await subjects('sender:"bob@elsewhere.test"')).toEqual(['two']);
    expect(await subjects('text_content:"brown fox"')).toEqual(['one']);
    expect(await subjects('text_content:lazy')).toEqual(['two']);
    expect(await subjects('html_content:"lazy dog"')).toEqual(['two']);
    expect(await subjects(`destinations:"${t.uuid}+two"`)).toEqual(['two']);
    expect(await subjects(`message_id:"${second.messageId.replace(/^<|>$/g, '')}"`)).toEqual(['two']);
    expect(await subjects('checks.dkim:true')).toEqual(['one']);
    expect(await subjects('checks.spf:false')).toEqual(['two']);
    expect(await subjects('headers.subject:two')).toEqual(['two']);
    expect(await subjects('content:"quick brown"')).toEqual(['one']);
  });

  it("runs the token's Custom Actions with the e-mail variables", async () => {
    const t = await s.token({ actions: true });
    const created = await s.call('POST', `/token/${t.uuid}/actions`, {
      json: {
        type: 'log',
        parameters: {
          text: 'from=$request.sender$ to=$request.destinations$ type=$request.type$ spf=$request.checks.spf$ spam=$request.checks.spam$ subject=$request.header.subject$ text=$request.text_content$ id=$request.message_id$ file=$request.file.notes.txt.filename$',
        },
      },
    });
    expect(created.status).toBe(200);
    const info = await send({ from: 'alice@sender.test', to: addr(t), subject: 'acting', text: 'body text', attachments: [{ filename: 'notes.txt', content: 'n' }] });
    const [r] = await requests(t.uuid);
    expect(r.custom_action_output).toEqual([`[1 log] from=alice@sender.test to=${addr(t)} type=email spf=true spam= subject=acting text=body text id=${info.messageId.replace(/^<|>$/g, '')} file=notes.txt`]);
  });

  it('refuses recipients that are not tokens at RCPT time and stores nothing', async () => {
    const t = await s.token();
    const unknown = await sendError({ from: 'a@sender.test', to: `${randomUUID()}@${DOMAIN}`, subject: 'x', text: 'x' });
    expect(unknown.rejectedErrors?.[0]).toMatchObject({ responseCode: 550 });
    expect(unknown.rejectedErrors?.[0]?.response).toContain('no such token');
    const foreign = await sendError({ from: 'a@sender.test', to: `${t.uuid}@example.com`, subject: 'x', text: 'x' });
    expect(foreign.rejectedErrors?.[0]).toMatchObject({ responseCode: 550 });
    expect(foreign.rejectedErrors?.[0]?.response).toContain('relaying denied');
    // An expired token is no address either.
    const expired = await s.token();
    await s.services.store.tokens.update(expired.uuid, { expires_at: Date.now() - 1000 });
    const gone = await sendError({ from: 'a@sender.test', to: addr(expired), subject: 'x', text: 'x' });
    expect(gone.rejectedErrors?.[0]).toMatchObject({ responseCode: 550 });
    expect(await requests(t.uuid)).toEqual([]);
  });

  it('refuses a message over the size limit with 552 and stores nothing', async () => {
    const t = await s.token();
    const err = await sendError({ from: 'a@sender.test', to: addr(t), subject: 'big', text: 'x', attachments: [{ filename: 'big.bin', content: Buffer.alloc(300 * 1024, 1) }] });
    expect(err.responseCode).toBe(552);
    expect(err.response).toContain('SMTP_MAX_MESSAGE_BYTES');
    expect(err.response).toContain(String(256 * 1024));
    // A client that declares the size (MAIL FROM ... SIZE=n) is refused before it sends the data.
    const lines = await smtpDialog(['EHLO client.test', `MAIL FROM:<a@sender.test> SIZE=${300 * 1024}`, 'QUIT']);
    expect(lines.find((l) => l.startsWith('552 '))).toBeDefined();
    expect(await requests(t.uuid)).toEqual([]);
  });

  it('refuses malformed messages with 550 and stores nothing', async () => {
    const t = await s.token();
    const envelope = { from: 'a@sender.test', to: [addr(t)] };
    const notMail = await sendError({ envelope, raw: 'This is not an e-mail message\r\njust some text\r\n' });
    expect(notMail.responseCode).toBe(550);
    expect(notMail.response).toMatch(/5\.6\.0 Malformed message: line 1 /);
    const noFrom = await sendError({ envelope, raw: 'Subject: no sender\r\nTo: x@y.test\r\n\r\nbody\r\n' });
    expect(noFrom.response).toContain('no From header');
    const folded = await sendError({ envelope, raw: ' folded: first\r\nFrom: a@b.test\r\n\r\nbody\r\n' });
    expect(folded.responseCode).toBe(550);
    expect(await requests(t.uuid)).toEqual([]);
  });

  it('refuses a message that passed through the service more than SMTP_LOOP_LIMIT times', async () => {
    const t = await s.token();
    const looped = (n: number) => ({
      envelope: { from: 'a@sender.test', to: [addr(t)] },
      raw: `From: a@sender.test\r\nSubject: loop ${n}\r\n${Array.from({ length: n }, () => `X-Capture-Loop: ${DOMAIN}\r\n`).join('')}\r\nbody\r\n`,
    });
    await send(looped(3));
    const err = await sendError(looped(4));
    expect(err.responseCode).toBe(554);
    expect(err.response).toContain('Mail loop detected');
    expect((await requests(t.uuid)).map((r) => r.subject)).toEqual(['loop 3']);
  });

  it('answers SMTP like a mail server: EHLO, unknown commands, no AUTH, any case of the domain', async () => {
    const t = await s.token();
    const lines = await smtpDialog(['EHLO client.test', 'AUTH PLAIN AGFhAGI=', 'VRFY x', 'MAIL FROM:<a@b.test>', `RCPT TO:<${t.uuid.toUpperCase()}@${DOMAIN.toUpperCase()}>`, 'QUIT']);
    expect(lines.at(-2)).toMatch(/^250 /);
    expect(lines[0]).toMatch(new RegExp(`^220 ${DOMAIN.replace(/\./g, '\\.')} `));
    expect(lines.some((l) => /^250[- ]SIZE 262144/.test(l))).toBe(true);
    expect(lines.some((l) => /STARTTLS/.test(l))).toBe(false);
    expect(lines.some((l) => /^5\d\d /.test(l))).toBe(true);
  });
});

/** Sends each command once the previous reply is complete; returns every reply line. */
function smtpDialog(commands: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const lines: string[] = [];
    let buffered = '';
    const queue = [...commands];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 2);
        lines.push(line);
        if (/^\d{3} /.test(line)) {
          const next = queue.shift();
          if (next) socket.write(next + '\r\n');
        }
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(lines));
  });
}

describe('e-mail headers', () => {
  it('decodes encoded-words', () => {
    expect(decodeWords('=?UTF-8?B?R3LDvMOfZQ==?= =?utf-8?Q?_from_=C3=BC?=')).toBe('Grüße from ü');
    expect(decodeWords('=?iso-8859-1?q?caf=E9?= ok')).toBe('café ok');
    expect(decodeWords('plain')).toBe('plain');
  });

  it('unfolds headers and keeps their order', () => {
    expect(readHeaders(Buffer.from('From: a@b.test\r\nSubject: one\r\n  two\r\nX-A: 1\r\nx-a: 2\r\n\r\nbody'))).toEqual([
      { name: 'from', value: 'a@b.test' },
      { name: 'subject', value: 'one  two' },
      { name: 'x-a', value: '1' },
      { name: 'x-a', value: '2' },
    ]);
  });
});

describe('SMTP server start-up and STARTTLS', () => {
  it('names the setting when the port is taken', async () => {
    // Node's error, marked for explainStartupError (core/lifecycle/startup.ts), which words it.
    await expect(startTestServer({ EMAIL_DOMAIN: DOMAIN, SMTP_PORT: String(port) }, { modules: [createMailModule({ resolver: fakeDns })] })).rejects.toMatchObject({
      code: 'EADDRINUSE',
      setting: 'SMTP_PORT',
      transport: 'tcp',
    });
  });

  it('does not start with SMTP_ENABLED=false', async () => {
    const off = await startTestServer({ SMTP_ENABLED: 'false' }, { modules: [createMailModule()] });
    try {
      expect(off.provided.get(MAIL_INFO)).toEqual({ port: null });
    } finally {
      await off.close();
    }
  });

  let openssl = true;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    openssl = false;
  }

  it.skipIf(!openssl)('offers STARTTLS when a certificate is configured, and records that the message came over TLS', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'smtp-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${DOMAIN}`], { stdio: 'ignore' });
    const tls = await startTestServer({ EMAIL_DOMAIN: DOMAIN, SMTP_TLS_CERT: cert, SMTP_TLS_KEY: key, SMTP_AUTH_CHECKS: 'false' }, { modules: [createMailModule()] });
    try {
      const t = await tls.token();
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: tls.provided.get(MAIL_INFO)!.port!, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
      await transport.sendMail({ from: 'a@sender.test', to: addr(t), subject: 'secret', text: 'over TLS' });
      transport.close();
      const list = await tls.call('GET', `/token/${t.uuid}/requests`);
      expect(list.data.data[0]).toMatchObject({ subject: 'secret', tls: true, checks: { spf: null, dkim: null, dmarc: null } });
      expect(list.data.data[0].checks_detail.spf).toContain('SMTP_AUTH_CHECKS=false');
    } finally {
      await tls.close();
    }
  });

  it('refuses a certificate without its key', () => {
    writeFileSync(path.join(tmpdir(), 'unused'), '');
    return expect(startTestServer({ SMTP_TLS_CERT: '/nonexistent.pem' })).rejects.toThrow(/SMTP_TLS_CERT and SMTP_TLS_KEY must be set together/);
  });
});
