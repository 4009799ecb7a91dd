// Outgoing mail for actions (Send Email). Core registers the implementation under MAILER in the
// container every plugin's child container descends from; core/mail/relay.ts delivers through the
// configured SMTP relay (SMTP_RELAY_URL) or, without one, to this service's own SMTP server.
import type { InjectionToken } from 'tsyringe';

export interface OutgoingAttachment {
  filename: string;
  content: string | Buffer;
  contentType?: string;
}

export interface OutgoingMail {
  /** Display name of the sender; the address is the service's (SMTP_RELAY_FROM). */
  senderName?: string;
  /** Set as Reply-To. */
  replyTo?: string;
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  attachments?: OutgoingAttachment[];
  /**
   * How many times the message that caused this one had already passed through the service (its
   * X-Capture-Loop headers). The mailer refuses to send beyond the loop limit.
   */
  passes: number;
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
  /** The relay's last reply, e.g. `250 Message accepted`. */
  response: string;
}

export interface Mailer {
  send(mail: OutgoingMail, signal?: AbortSignal): Promise<SentMail>;
}

export const MAILER: InjectionToken<Mailer> = Symbol.for('capture.sdk.Mailer');
