// The `send_email` action: an e-mail with variable contents, sent through the service's mailer
// (core registers it under MAILER). Loop protection: the mailer counts the X-Capture-Loop headers
// of the e-mail that triggered the action and refuses to send past the configured limit.
import { boolean, defineAction, MAILER, type Mailer, optionalText, z } from '@capture/sdk';
import { textBytes } from '@capture/sdk/bytes';

export const MAX_RECIPIENTS = 20;
const ADDRESS = z.string().email();

/** `a@x.test, b@y.test; c@z.test` -> the addresses, or an error naming the bad one. */
export function parseRecipients(text: string): string[] {
  const list = text
    .split(/[,;\s]+/)
    .map((a) => a.trim().replace(/^<(.*)>$/, '$1'))
    .filter(Boolean);
  if (!list.length) throw new Error('No recipient given');
  if (list.length > MAX_RECIPIENTS) throw new Error(`At most ${MAX_RECIPIENTS} recipients (got ${list.length})`);
  for (const a of list) if (!ADDRESS.safeParse(a).success) throw new Error(`"${a}" is not an e-mail address`);
  return [...new Set(list)];
}

/** An attachment as the API takes it (shared by send_email and send_email_smtp). */
export const attachment = z.object({
  filename: z.string().trim().min(1).max(255),
  content: z.string().describe('The file: text, or bytes such as $request.file.<name>.content$, attached as they are; base64 text with encoding base64'),
  content_type: optionalText(),
  /** `base64` when the content is base64 text of binary data (e.g. `$request.file.x.content.base64_encode$`). */
  encoding: z.enum(['text', 'base64']).nullish().describe('base64: the content is base64 text, decoded before attaching; default text'),
});

/**
 * The attachments' bytes: base64 content decoded; otherwise the variable text's bytes (textBytes),
 * so a file's bytes ($request.file.x.content$, a download) are attached unchanged.
 */
export function mailAttachments(list: ReadonlyArray<z.output<typeof attachment>> | null | undefined) {
  return (list ?? []).map((a) => ({
    filename: a.filename,
    content: a.encoding === 'base64' ? Buffer.from(a.content, 'base64') : textBytes(a.content),
    contentType: a.content_type,
  }));
}

export const sendEmail = defineAction({
  type: 'send_email',
  title: 'Send Email',
  category: 'email',
  description: "Sends an e-mail with variable contents through the service's mail relay. Sender is the name shown as the sender (an address there becomes the Reply-To). Recipients are separated by commas.",
  parameters: z.object({
    sender: optionalText(),
    recipient: z.string().trim().min(1, 'is required'),
    subject: z.string().trim().min(1, 'is required').max(998),
    content: optionalText(),
    is_html: boolean().nullish(),
    attachments: z.array(attachment).max(10).nullish(),
  }),
  async execute(ctx, params) {
    const to = parseRecipients(params.recipient);
    if (!ctx.container.isRegistered(MAILER, true)) throw new Error('Sending e-mail is not available on this server (no mailer configured)');
    const mailer = ctx.container.resolve<Mailer>(MAILER);
    const sender = params.sender?.trim() || undefined;
    const senderIsAddress = !!sender && ADDRESS.safeParse(sender).success;
    const body = params.content ?? '';
    const passes = ctx.request.type === 'email' ? (ctx.request.headers?.['x-capture-loop']?.length ?? 0) : 0;
    const sent = await mailer.send(
      {
        senderName: sender,
        replyTo: senderIsAddress ? sender : undefined,
        to,
        subject: params.subject,
        ...(params.is_html ? { html: body } : { text: body }),
        attachments: mailAttachments(params.attachments),
        passes,
      },
      ctx.signal,
    );
    if (sent.accepted.length) ctx.log(`E-mail "${params.subject}" sent to ${sent.accepted.join(', ')} (${sent.messageId})`);
    if (sent.rejected.length) ctx.error(`Not accepted by the mail server: ${sent.rejected.join(', ')}`);
  },
});
