import { describe, expect, it } from 'vitest';
import { MAILER, type Mailer, type OutgoingMail } from '@capture/sdk';
import { bytesText } from '@capture/sdk/bytes';
import { rootContainer, runAction } from '@capture/sdk/testing';
import { parseRecipients, sendEmail } from '../src/send-email.js';

function fakeMailer(reject: string[] = []) {
  const sent: OutgoingMail[] = [];
  const mailer: Mailer = {
    async send(mail) {
      sent.push(mail);
      return { messageId: '<m1@test>', accepted: mail.to.filter((a) => !reject.includes(a)), rejected: mail.to.filter((a) => reject.includes(a)), response: '250 OK' };
    },
  };
  const container = rootContainer.createChildContainer();
  container.registerInstance(MAILER, mailer);
  return { sent, container };
}

describe('send_email', () => {
  it('sends the templated message through the mailer', async () => {
    const { sent, container } = fakeMailer();
    const r = await runAction(
      sendEmail,
      { sender: 'Alerts', recipient: 'a@x.test, b@y.test', subject: 'New $request.method$', content: '<p>$request.content$</p>', is_html: true },
      { container, request: { content: 'hello' } },
    );
    expect(r.errors).toEqual([]);
    expect(sent).toEqual([{ senderName: 'Alerts', replyTo: undefined, to: ['a@x.test', 'b@y.test'], subject: 'New POST', html: '<p>hello</p>', attachments: [], passes: 0 }]);
    expect(r.output).toEqual(['E-mail "New POST" sent to a@x.test, b@y.test (<m1@test>)']);
  });

  it('sends text by default, a sender address as Reply-To, and attachments (base64 decoded)', async () => {
    const { sent, container } = fakeMailer();
    await runAction(
      sendEmail,
      {
        sender: 'me@example.test',
        recipient: 'a@x.test',
        subject: 's',
        content: 'plain',
        attachments: [
          { filename: 'a.txt', content: 'text file' },
          { filename: 'b.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64', content_type: 'application/octet-stream' },
        ],
      },
      { container },
    );
    expect(sent[0]).toMatchObject({ senderName: 'me@example.test', replyTo: 'me@example.test', text: 'plain' });
    expect(sent[0]!.attachments).toEqual([
      { filename: 'a.txt', content: Buffer.from('text file'), contentType: undefined },
      { filename: 'b.bin', content: Buffer.from([0, 1, 2]), contentType: 'application/octet-stream' },
    ]);
  });

  it('attaches bytes (an uploaded file, a binary variable) byte-exactly; text as UTF-8', async () => {
    const { sent, container } = fakeMailer();
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const r = await runAction(
      sendEmail,
      {
        recipient: 'a@x.test',
        subject: 's',
        attachments: [
          { filename: '$request.file.img.filename$', content: '$request.file.img.content$', content_type: '$request.file.img.content_type$' },
          { filename: 'var.bin', content: '$bin$', encoding: 'text' },
          { filename: 'b64.bin', content: '$bin.base64_encode$', encoding: 'base64' },
          { filename: 'ü.txt', content: 'héllo ✓' },
        ],
      },
      { container, vars: { bin: bytesText(allBytes) }, request: { files: [{ id: 'f', name: 'img', filename: 'all.bin', size: 256, content_type: 'application/octet-stream', content: allBytes }] } },
    );
    expect(r.errors).toEqual([]);
    expect(sent[0]!.attachments).toEqual([
      { filename: 'all.bin', content: allBytes, contentType: 'application/octet-stream' },
      { filename: 'var.bin', content: allBytes, contentType: undefined },
      { filename: 'b64.bin', content: allBytes, contentType: undefined },
      { filename: 'ü.txt', content: Buffer.from('héllo ✓', 'utf8'), contentType: undefined },
    ]);
  });

  it('passes on how often the triggering e-mail went through the service', async () => {
    const { sent, container } = fakeMailer();
    await runAction(sendEmail, { recipient: 'a@x.test', subject: 's' }, { container, request: { type: 'email', headers: { 'x-capture-loop': ['d', 'd'] } } });
    // Only e-mail captures count; a web request with that header does not.
    await runAction(sendEmail, { recipient: 'a@x.test', subject: 's' }, { container, request: { headers: { 'x-capture-loop': ['d'] } } });
    expect(sent.map((m) => m.passes)).toEqual([2, 0]);
  });

  it('reports recipients the server did not accept as an error', async () => {
    const { container } = fakeMailer(['b@y.test']);
    const r = await runAction(sendEmail, { recipient: 'a@x.test,b@y.test', subject: 's' }, { container });
    expect(r.output).toEqual(['E-mail "s" sent to a@x.test (<m1@test>)']);
    expect(r.errors).toEqual(['Not accepted by the mail server: b@y.test']);
  });

  it('rejects bad recipients and missing subjects without sending', async () => {
    const { sent, container } = fakeMailer();
    expect((await runAction(sendEmail, { recipient: 'not-an-address', subject: 's' }, { container })).errors).toEqual(['"not-an-address" is not an e-mail address']);
    expect((await runAction(sendEmail, { recipient: 'a@x.test', subject: '' }, { container })).errors[0]).toMatch(/subject/);
    expect(sent).toEqual([]);
  });

  it('says so when no mailer is registered', async () => {
    const r = await runAction(sendEmail, { recipient: 'a@x.test', subject: 's' }, { container: rootContainer.createChildContainer() });
    expect(r.errors[0]).toMatch(/not available/);
  });

  it('parses recipient lists', () => {
    expect(parseRecipients(' a@x.test; <b@y.test>\nc@z.test, a@x.test')).toEqual(['a@x.test', 'b@y.test', 'c@z.test']);
    expect(() => parseRecipients(Array.from({ length: 21 }, (_, i) => `u${i}@x.test`).join(','))).toThrow(/At most 20/);
  });
});
