// Outgoing mail (the Mailer behind the Send Email action): through SMTP_RELAY_URL when set,
// otherwise to this service's own SMTP server, which accepts token addresses only. Every message
// carries one X-Capture-Loop header per pass through the service, and is not sent beyond
// SMTP_LOOP_LIMIT passes.
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../config.js';
import type { Mailer, OutgoingMail, SentMail } from '@capture/sdk';
import { lazyImport } from '@capture/sdk/async';

/** Header added once per pass through the service; counted to stop mail loops. */
export const LOOP_HEADER = 'X-Capture-Loop';

// nodemailer is loaded by the first message sent, not at start-up.
const loadNodemailer = lazyImport(() => import('nodemailer').then((m) => m.default));

export class MailLoop extends Error {}

export interface RelayMailer extends Mailer {
  close(): void;
}

const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * `localPort()` is the port of this service's SMTP server, or null when it is off; used when no
 * relay is configured.
 */
export function createRelayMailer(config: Config, localPort: () => number | null): RelayMailer {
  const from = config.SMTP_RELAY_FROM ?? `noreply@${config.EMAIL_DOMAIN}`;
  let transport: Transporter<SMTPTransport.SentMessageInfo> | null = null;

  async function transporter(): Promise<Transporter<SMTPTransport.SentMessageInfo>> {
    const nodemailer = await loadNodemailer();
    if (transport) return transport;
    if (config.SMTP_RELAY_URL) {
      transport = nodemailer.createTransport({ url: config.SMTP_RELAY_URL, ...TIMEOUTS } as SMTPTransport.Options);
    } else {
      const port = localPort();
      if (port === null) throw new Error('No SMTP relay is configured (SMTP_RELAY_URL) and the SMTP server is off (SMTP_ENABLED=false)');
      const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST === '::' ? '::1' : config.HOST;
      // Loopback to our own server: no TLS to negotiate.
      transport = nodemailer.createTransport({ host, port, secure: false, ignoreTLS: true, ...TIMEOUTS });
    }
    return transport;
  }

  return {
    async send(mail: OutgoingMail, signal?: AbortSignal): Promise<SentMail> {
      const passes = mail.passes + 1;
      if (passes > config.SMTP_LOOP_LIMIT) {
        throw new MailLoop(`Mail loop protection: the message that triggered this action has already passed through this service ${mail.passes} times (SMTP_LOOP_LIMIT=${config.SMTP_LOOP_LIMIT}); not sent`);
      }
      signal?.throwIfAborted();
      const sending = (await transporter()).sendMail({
        from: mail.senderName ? { name: mail.senderName, address: from } : from,
        replyTo: mail.replyTo,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        attachments: mail.attachments?.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
        headers: { [LOOP_HEADER]: Array.from({ length: passes }, () => config.EMAIL_DOMAIN) },
      });
      const info = signal ? await Promise.race([sending, new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true }))]) : await sending;
      const addr = (a: string | { address: string }) => (typeof a === 'string' ? a : a.address);
      return { messageId: info.messageId, accepted: info.accepted.map(addr), rejected: info.rejected.map(addr), response: info.response };
    },
    close() {
      transport?.close();
      transport = null;
    },
  };
}
