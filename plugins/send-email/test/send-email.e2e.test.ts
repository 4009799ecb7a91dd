// The Send Email action in a running server: a token's action mails another token's address and
// the SMTP server captures it; a token mailing itself stops at the loop limit; SMTP_RELAY_URL
// delivers through another server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { createActionsModule, createMailModule, MAIL_INFO } from '../../../test/helpers/host.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const DOMAIN = 'send.test.internal';
const noDns = async () => {
  throw Object.assign(new Error('offline'), { code: 'ENOTFOUND' });
};

let s: TestServer;

async function emails(tokenId: string, key?: string): Promise<any[]> {
  const r = await s.call('GET', `/token/${tokenId}/requests?sorting=oldest`, { key });
  expect(r.status).toBe(200);
  return r.data.data;
}

async function addAction(server: TestServer, tokenId: string, parameters: Record<string, unknown>) {
  const r = await server.call('POST', `/token/${tokenId}/actions`, { json: { type: 'send_email', parameters } });
  expect(r.status, r.text).toBe(200);
}

beforeAll(async () => {
  s = await startTestServer({ EMAIL_DOMAIN: DOMAIN, SMTP_LOOP_LIMIT: '3' }, { modules: [createMailModule({ resolver: noDns }), createActionsModule()] });
});

afterAll(async () => {
  await s?.close();
});

describe('send_email action', () => {
  it("mails another token's address, which captures the message", async () => {
    const from = await s.token({ actions: true });
    const to = await s.token();
    await addAction(s, from.uuid, {
      sender: 'Capture Bot',
      recipient: `${to.uuid}@${DOMAIN}`,
      subject: 'Got a $request.method$',
      content: '<p>Body: $request.content$</p>',
      is_html: true,
      attachments: [{ filename: 'body.json', content: '$request.content$', content_type: 'application/json' }],
    });

    const hook = await s.call('POST', `/${from.uuid}`, { json: { order: 42 } });
    expect(hook.status).toBe(200);

    const [web] = await emails(from.uuid);
    expect(web.custom_action_errors).toEqual([]);
    expect(web.custom_action_output[0]).toMatch(new RegExp(`^\\[1 send_email\\] E-mail "Got a POST" sent to ${to.uuid}@${DOMAIN}`));

    const [mail] = await emails(to.uuid);
    expect(mail).toMatchObject({
      type: 'email',
      sender: `noreply@${DOMAIN}`,
      subject: 'Got a POST',
      destinations: [`${to.uuid}@${DOMAIN}`],
      html_content: '<p>Body: {"order":42}</p>',
    });
    expect(mail.text_content).toContain('Body: {"order":42}');
    expect(mail.headers.from).toEqual([`Capture Bot <noreply@${DOMAIN}>`]);
    expect(mail.headers['x-capture-loop']).toEqual([DOMAIN]);
    expect(mail.files).toMatchObject([{ filename: 'body.json', content_type: 'application/json' }]);
    const file = await s.call('GET', `/token/${to.uuid}/request/${mail.uuid}/download/${mail.files[0].id}`);
    expect(JSON.parse(file.text)).toEqual({ order: 42 });
  });

  it('attaches an uploaded binary file byte-exactly', async () => {
    const from = await s.token({ actions: true });
    const to = await s.token();
    await addAction(s, from.uuid, {
      recipient: `${to.uuid}@${DOMAIN}`,
      subject: 'A file',
      content: 'attached',
      attachments: [{ filename: '$request.file.img.filename$', content: '$request.file.img.content$', content_type: '$request.file.img.content_type$' }],
    });
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const boundary = 'e2e-boundary-7f3a';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="img"; filename="all.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      allBytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const hook = await s.call('POST', `/${from.uuid}`, { body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    expect(hook.status).toBe(200);

    const [web] = await emails(from.uuid);
    expect(web.custom_action_errors).toEqual([]);
    const [mail] = await emails(to.uuid);
    expect(mail.files).toMatchObject([{ filename: 'all.bin', content_type: 'application/octet-stream', size: 256 }]);
    const file = await s.call('GET', `/token/${to.uuid}/request/${mail.uuid}/download/${mail.files[0].id}`);
    expect(file.buf.equals(allBytes)).toBe(true);
  });

  it('stops a token that mails itself at SMTP_LOOP_LIMIT passes', async () => {
    const t = await s.token({ actions: true });
    await addAction(s, t.uuid, { recipient: `${t.uuid}@${DOMAIN}`, subject: 'again', content: 'loop' });
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: s.provided.get(MAIL_INFO)!.port!, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'start@example.test', to: `${t.uuid}@${DOMAIN}`, subject: 'start', text: 'go' });
    transport.close();

    const all = await emails(t.uuid);
    // The first message, then one per pass: 1, 2, 3 loop headers; the action on the third is refused.
    expect(all).toHaveLength(4);
    const byPasses = all.map((r) => [(r.headers['x-capture-loop'] ?? []).length, r.custom_action_errors.length]).sort();
    expect(byPasses).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 1],
    ]);
    const last = all.find((r) => (r.headers['x-capture-loop'] ?? []).length === 3);
    expect(last.custom_action_output.join('\n')).toContain('Mail loop protection');
  });

  it('reports an address the relay refuses as an action error, not a failed capture', async () => {
    const t = await s.token({ actions: true });
    await addAction(s, t.uuid, { recipient: 'someone@example.com', subject: 'nowhere' });
    const hook = await s.call('POST', `/${t.uuid}`, { body: 'x' });
    expect(hook.status).toBe(200);
    const [r] = await emails(t.uuid);
    expect(r.custom_action_errors).toHaveLength(1);
    expect(r.custom_action_output.join('\n')).toMatch(/relaying denied/);
  });

  it('delivers through SMTP_RELAY_URL when it is set', async () => {
    const relayPort = s.provided.get(MAIL_INFO)!.port!;
    const sender = await startTestServer(
      { EMAIL_DOMAIN: 'other.test.internal', SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}`, SMTP_RELAY_FROM: 'robot@other.test.internal' },
      { modules: [createMailModule({ resolver: noDns }), createActionsModule()] },
    );
    try {
      const target = await s.token();
      const from = await sender.token({ actions: true });
      await addAction(sender, from.uuid, { recipient: `${target.uuid}@${DOMAIN}`, subject: 'via relay', content: 'relayed' });
      expect((await sender.call('GET', `/${from.uuid}`)).status).toBe(200);
      const [mail] = await emails(target.uuid);
      expect(mail).toMatchObject({ sender: 'robot@other.test.internal', subject: 'via relay' });
      expect(mail.text_content.trim()).toBe('relayed');
    } finally {
      await sender.close();
    }
  });
});
