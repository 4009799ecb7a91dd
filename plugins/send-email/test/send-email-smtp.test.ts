// send_email_smtp against real in-process SMTP servers on loopback: STARTTLS, implicit TLS and
// plain, each with AUTH checked; what they received is parsed back with mailparser.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bytesText } from '@capture/sdk/bytes';
import type { Network } from '@capture/sdk';
import { rootContainer, runAction, validateParams } from '@capture/sdk/testing';
import { SMTP_TLS_OPTIONS, sendEmailSmtp } from '../src/send-email-smtp.js';

const HOST = 'mail.test.internal';
const USER = 'alice@example.test';
const PASSWORD = 'app-pass-7Qx9';

interface Received {
  mail: ParsedMail;
  from: string;
  rcpt: string[];
  secure: boolean;
  user: unknown;
}

let cert: Buffer;
let key: Buffer;
let received: Received[] = [];
const servers: SMTPServer[] = [];
const ports: Record<'plain' | 'starttls' | 'implicit', number> = { plain: 0, starttls: 0, implicit: 0 };

async function listen(options: SMTPServerOptions): Promise<number> {
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === USER && auth.password === PASSWORD) cb(null, { user: auth.username });
      else cb(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
    },
    onRcptTo(addr, _session, cb) {
      if (addr.address.startsWith('nobody@')) cb(Object.assign(new Error('No such user'), { responseCode: 550 }));
      else cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            mail,
            from: (session.envelope.mailFrom && session.envelope.mailFrom.address) || '',
            rcpt: session.envelope.rcptTo.map((r) => r.address),
            secure: session.secure,
            user: session.user,
          });
          cb();
        })
        .catch(cb);
    },
    ...options,
  });
  // A client that rejects the certificate hangs up mid-handshake; the server reports that as an error.
  server.on('error', () => {});
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.server.address() as AddressInfo).port;
}

/** Resolves every name to loopback (as the policy would answer with an allowed address). */
const resolved: string[] = [];
const loopback: Network = {
  async resolve(host) {
    resolved.push(host);
    return { address: '127.0.0.1', family: 4 };
  },
};

function trusting() {
  const c = rootContainer.createChildContainer();
  c.registerInstance(SMTP_TLS_OPTIONS, { ca: cert });
  return c;
}

function send(params: Record<string, unknown>, opts: { net?: Network; trust?: boolean } = {}) {
  return runAction(
    sendEmailSmtp,
    { host: HOST, username: USER, password: PASSWORD, recipient: 'bob@example.test', subject: 'Hello', ...params },
    { services: { net: opts.net ?? loopback }, container: opts.trust === false ? rootContainer.createChildContainer() : trusting(), request: { content: '{"order":42}' } },
  );
}

const toList = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address));

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smtp-test-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '2', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`],
    { stdio: 'ignore' },
  );
  key = fs.readFileSync(path.join(dir, 'key.pem'));
  cert = fs.readFileSync(path.join(dir, 'cert.pem'));
  fs.rmSync(dir, { recursive: true, force: true });
  ports.plain = await listen({ secure: false, disabledCommands: ['STARTTLS'], allowInsecureAuth: true });
  // Without allowInsecureAuth, AUTH only works once STARTTLS has happened.
  ports.starttls = await listen({ secure: false, key, cert });
  ports.implicit = await listen({ secure: true, key, cert });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

beforeEach(() => {
  received = [];
  resolved.length = 0;
});

describe('send_email_smtp', () => {
  it('sends over STARTTLS (tls) with HTML, attachments and the sender name', async () => {
    const r = await send({
      port: ports.starttls,
      encryption: 'TLS',
      sender_name: 'Capture Bot',
      sender_email: 'bot@example.test',
      recipient: 'bob@example.test; carol@example.test',
      subject: 'Got $request.content.json$',
      content: '<p>Order: $request.content$</p>',
      is_html: true,
      attachments: [
        { filename: 'order.json', content: '$request.content$', content_type: 'application/json' },
        { filename: 'bytes.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64', content_type: 'application/octet-stream' },
      ],
    });
    expect(r.errors).toEqual([]);
    expect(resolved).toEqual([HOST]);
    expect(received).toHaveLength(1);
    const [{ mail, secure, user, from, rcpt }] = received;
    expect(secure).toBe(true);
    expect(user).toBe(USER);
    expect(from).toBe('bot@example.test');
    expect(rcpt).toEqual(['bob@example.test', 'carol@example.test']);
    expect(mail.subject).toBe('Got {\\"order\\":42}');
    expect(mail.from?.value).toEqual([{ name: 'Capture Bot', address: 'bot@example.test' }]);
    expect(toList(mail.to)).toEqual(['bob@example.test', 'carol@example.test']);
    expect(mail.html).toBe('<p>Order: {"order":42}</p>');
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString('hex')])).toEqual([
      ['order.json', 'application/json', Buffer.from('{"order":42}').toString('hex')],
      ['bytes.bin', 'application/octet-stream', '000102ff'],
    ]);
    expect(r.output).toHaveLength(1);
    expect(r.output[0]).toMatch(new RegExp(`^E-mail "Got .*" sent through ${HOST}:${ports.starttls} to bob@example.test, carol@example.test \\(<.+>\\)$`));
  });

  it('attaches an uploaded file and a binary variable byte-exactly', async () => {
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const r = await runAction(
      sendEmailSmtp,
      {
        host: HOST,
        port: ports.starttls,
        username: USER,
        password: PASSWORD,
        recipient: 'bob@example.test',
        subject: 'Files',
        content: 'see attached',
        attachments: [
          { filename: '$request.file.img.filename$', content: '$request.file.img.content$', content_type: 'image/png' },
          { filename: 'var.bin', content: '$bin$', content_type: 'application/octet-stream' },
        ],
      },
      {
        services: { net: loopback },
        container: trusting(),
        vars: { bin: bytesText(allBytes) },
        request: { files: [{ id: 'f', name: 'img', filename: 'image.png', size: 256, content_type: 'image/png', content: allBytes }] },
      },
    );
    expect(r.errors).toEqual([]);
    const [{ mail }] = received;
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.equals(allBytes)])).toEqual([
      ['image.png', 'image/png', true],
      ['var.bin', 'application/octet-stream', true],
    ]);
  });

  it('sends over implicit TLS (ssl), text by default, the username as sender', async () => {
    const r = await send({ port: String(ports.implicit), encryption: 'ssl', content: 'plain text body' });
    expect(r.errors).toEqual([]);
    const [{ mail, secure }] = received;
    expect(secure).toBe(true);
    expect(mail.from?.value).toEqual([{ name: '', address: USER }]);
    expect(mail.text?.trim()).toBe('plain text body');
    expect(mail.html).toBe(false);
  });

  it('sends without encryption (none)', async () => {
    const r = await send({ port: ports.plain, encryption: 'none', content: 'in the clear' });
    expect(r.errors).toEqual([]);
    expect(received.map((x) => [x.secure, x.user, x.mail.text?.trim()])).toEqual([[false, USER, 'in the clear']]);
  });

  it('checks the certificate against the host name', async () => {
    const r = await send({ port: ports.implicit, encryption: 'ssl' }, { trust: false });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^Sending through mail\.test\.internal:\d+ failed: .*certificate/i);
    expect(received).toEqual([]);
  });

  it('tls refuses a server that offers no STARTTLS', async () => {
    const r = await send({ port: ports.plain, encryption: 'tls' });
    expect(r.errors[0]).toMatch(/STARTTLS/i);
    expect(received).toEqual([]);
  });

  it('reports a wrong password as an action error without echoing it', async () => {
    const r = await send({ port: ports.starttls, password: 'wrong-secret-1' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/failed: .*(535|Invalid login)/);
    expect(JSON.stringify(r.lines)).not.toContain('wrong-secret-1');
    expect(received).toEqual([]);
  });

  it('logs accepted recipients and reports rejected ones as an error', async () => {
    const r = await send({ port: ports.starttls, recipient: 'bob@example.test, nobody@example.test' });
    expect(r.output[0]).toMatch(/ to bob@example\.test \(/);
    expect(r.errors).toEqual(['Not accepted by the mail server: nobody@example.test']);
    expect(received.map((x) => x.rcpt)).toEqual([['bob@example.test']]);
  });

  it('does not connect when the outbound policy refuses the host', async () => {
    const refuse: Network = {
      resolve: async (host) => {
        throw new Error(`${host} resolves to 127.0.0.1, a loopback address (outbound policy)`);
      },
    };
    const r = await send({ port: ports.plain, encryption: 'none' }, { net: refuse });
    expect(r.errors).toEqual([`${HOST} resolves to 127.0.0.1, a loopback address (outbound policy)`]);
    expect(received).toEqual([]);
  });

  it("gives up within the chain's time budget when the server never greets", async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const r = await runAction(
        sendEmailSmtp,
        { host: HOST, port: (silent.address() as AddressInfo).port, username: USER, password: PASSWORD, recipient: 'bob@example.test', subject: 's' },
        { services: { net: loopback }, budgetMs: 600 },
      );
      expect(r.errors.join('\n')).toMatch(/time budget|greeting|timed out/i);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      silent.close();
    }
  });

  it('needs a sender address when the username is not one', async () => {
    const r = await send({ port: ports.plain, encryption: 'none', username: 'alice' });
    expect(r.errors).toEqual(['sender_email is required when the username is not an e-mail address']);
    expect(resolved).toEqual([]);
  });

  it('validates parameters as the API does', () => {
    const ok = { host: HOST, username: 'u', password: 'p', recipient: 'a@x.test', subject: 's' };
    expect(() => validateParams(sendEmailSmtp, ok)).not.toThrow();
    expect(() => validateParams(sendEmailSmtp, { ...ok, encryption: 'SSL', port: '465' })).not.toThrow();
    expect(() => validateParams(sendEmailSmtp, { ...ok, encryption: null, port: '' })).not.toThrow();
    expect(() => validateParams(sendEmailSmtp, { ...ok, encryption: 'starttls' })).toThrow(/parameters.encryption/);
    expect(() => validateParams(sendEmailSmtp, { ...ok, password: '' })).toThrow(/parameters.password/);
    expect(() => validateParams(sendEmailSmtp, { ...ok, host: undefined })).toThrow(/parameters.host/);
    expect(() => validateParams(sendEmailSmtp, { ...ok, port: 70000 })).toThrow(/parameters.port/);
  });
});
