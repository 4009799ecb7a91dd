// The `send_email_smtp` action: an e-mail sent through the user's own mail provider. The server
// connects to the address the outbound policy approved (ctx.services.net.resolve), never to the
// name again, and checks the certificate against the name (TLS servername).
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { boolean, defineAction, type InjectionToken, optionalPort, optionalText, secret, z } from '@capture/sdk';
import { lazyImport } from '@capture/sdk/async';
import { attachment, mailAttachments, parseRecipients } from './send-email.js';

// nodemailer is loaded by the first message sent, not at start-up.
const loadNodemailer = lazyImport(() => import('nodemailer').then((m) => m.default));

/**
 * Extra TLS options for the connection (e.g. `{ ca }` to trust a private CA). Not registered by
 * the server; a deployment or a test may register it in the plugin's container.
 */
export const SMTP_TLS_OPTIONS: InjectionToken<ConnectionOptions> = Symbol.for('capture.send-email.SmtpTlsOptions');

const DEFAULT_PORTS = { none: 25, ssl: 465, tls: 587 } as const;
/** Longest the connection, the greeting and each later reply may take (within the chain's budget). */
const MAX_WAIT_MS = 15_000;

const ADDRESS = z.string().email();

export const sendEmailSmtp = defineAction({
  type: 'send_email_smtp',
  title: 'Send Email (SMTP)',
  category: 'email',
  description:
    'Sends an e-mail with variable contents through your own mail provider. Encryption: ssl is TLS from the start (usually port 465), tls requires STARTTLS (usually port 587), none sends in the clear (port 25). Recipients are separated by commas. Some providers need an app password.',
  parameters: z.object({
    host: z.string().trim().min(1, 'is required').max(253),
    port: optionalPort().describe('Default 465 for ssl, 587 for tls, 25 for none'),
    username: z.string().min(1, 'is required'),
    password: secret(z.string().min(1, 'is required')),
    encryption: z
      .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() || undefined : (v ?? undefined)), z.enum(['none', 'ssl', 'tls']).default('tls'))
      .describe('ssl: implicit TLS; tls: STARTTLS required; none: no encryption'),
    sender_name: optionalText(),
    sender_email: optionalText().describe('Default: the username when it is an e-mail address'),
    recipient: z.string().trim().min(1, 'is required'),
    subject: z.string().trim().min(1, 'is required').max(998),
    content: optionalText(),
    is_html: boolean().nullish(),
    attachments: z.array(attachment).max(10).nullish(),
  }),
  async execute(ctx, params) {
    const to = parseRecipients(params.recipient);
    const senderEmail = params.sender_email?.trim() || (ADDRESS.safeParse(params.username.trim()).success ? params.username.trim() : '');
    if (!senderEmail) throw new Error('sender_email is required when the username is not an e-mail address');
    if (!ADDRESS.safeParse(senderEmail).success) throw new Error(`sender_email "${senderEmail}" is not an e-mail address`);

    const host = params.host.replace(/^\[(.*)\]$/, '$1');
    const { address } = await ctx.services.net.resolve(host);
    const port = params.port ?? DEFAULT_PORTS[params.encryption];
    const wait = Math.max(1, Math.min(MAX_WAIT_MS, ctx.timeLeftMs()));
    const servername = isIP(host) ? undefined : host;
    const extraTls = ctx.container.isRegistered(SMTP_TLS_OPTIONS, true) ? ctx.container.resolve<ConnectionOptions>(SMTP_TLS_OPTIONS) : {};

    const transport = (await loadNodemailer()).createTransport({
      host: address,
      port,
      secure: params.encryption === 'ssl',
      requireTLS: params.encryption === 'tls',
      ignoreTLS: params.encryption === 'none',
      servername,
      tls: { ...extraTls, servername },
      auth: { user: params.username, pass: params.password },
      connectionTimeout: wait,
      greetingTimeout: wait,
      socketTimeout: wait,
      dnsTimeout: wait,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    transport.use('stream', eightBit as Parameters<typeof transport.use>[1]);
    const body = params.content ?? '';
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () => reject(new Error('Timed out: the chain ran out of time while sending'));
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
    aborted.catch(() => {});
    try {
      const info = await Promise.race([
        transport.sendMail({
          from: { name: params.sender_name?.trim() ?? '', address: senderEmail },
          to,
          subject: params.subject,
          ...(params.is_html ? { html: body } : { text: body }),
          attachments: mailAttachments(params.attachments),
        }),
        aborted,
      ]);
      const accepted = addresses(info.accepted);
      const rejected = addresses(info.rejected);
      if (accepted.length) ctx.log(`E-mail "${params.subject}" sent through ${host}:${port} to ${accepted.join(', ')} (${info.messageId})`);
      if (rejected.length) ctx.error(`Not accepted by the mail server: ${rejected.join(', ')}`);
    } catch (err) {
      throw new Error(`Sending through ${host}:${port} failed: ${scrub(err instanceof Error ? err.message : String(err), params.password)}`);
    } finally {
      transport.close();
    }
  },
});

/** What nodemailer's message tree exposes to a `stream` plugin (lib/mime-node): only what eightBit uses. */
interface MimeTreeNode {
  content?: unknown;
  getHeader(name: string): unknown;
  childNodes?: MimeTreeNode[];
  getTransferEncoding(): string | false;
}

/**
 * Sends the text and HTML parts in 8bit, as webhook.site does (base64 text is not read by every
 * client). nodemailer only picks 7bit, quoted-printable or base64 for text, so its choice is
 * replaced on those parts once the message tree is built. SMTP lines may not pass 998 octets,
 * and NUL or a lone CR is not 8bit text: such a body keeps nodemailer's encoding.
 */
function eightBit(mail: { message: MimeTreeNode }, done: (err?: Error | null) => void): void {
  const visit = (node: MimeTreeNode) => {
    node.childNodes?.forEach(visit);
    if (!/^text\/(plain|html)/i.test(String(node.getHeader('Content-Type') ?? '')) || typeof node.content !== 'string') return;
    const lines = node.content.split(/\r?\n/);
    if (lines.every((l) => !/[\0\r]/.test(l) && Buffer.byteLength(l) <= 998)) node.getTransferEncoding = () => '8bit';
  };
  visit(mail.message);
  done();
}

function addresses(list: Array<string | { address: string }> | undefined): string[] {
  return (list ?? []).map((a) => (typeof a === 'string' ? a : a.address));
}

/** The password (and its base64 forms used by AUTH) never reaches the output. */
function scrub(message: string, password: string): string {
  let out = message;
  for (const secret of [password, Buffer.from(password).toString('base64')]) if (secret.length >= 3) out = out.split(secret).join('***');
  return out;
}
