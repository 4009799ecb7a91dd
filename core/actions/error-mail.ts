// E-mail about action errors (the execute endpoint's `error_notifications`): to the token owner's
// address, through the service's mailer, which delivers through SMTP_RELAY_URL. At most
// ERROR_MAILS_PER_HOUR per account in each clock hour, counted in the shared store so that several
// processes agree; the rest are dropped (the errors stay on the request and in the error log).
import type { Millis, Store, TokenRecord } from '../store/types.js';

export const ERROR_MAILS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

/** The part of the mail module's Mailer used here. */
export interface ErrorMailer {
  send(mail: { to: string[]; subject: string; text?: string; passes: number }): Promise<unknown>;
}

export type ErrorMailOutcome = 'sent' | 'rate_limited' | 'no_owner' | 'no_relay';

export async function mailActionErrors(
  deps: { store: Store; mailer: ErrorMailer | undefined; relayConfigured: boolean; now: Millis; baseUrl: string },
  token: TokenRecord,
  requestId: string,
  errors: ReadonlyArray<{ action: string; message: string }>,
): Promise<ErrorMailOutcome> {
  // Without a relay the mailer reaches only this service's own token addresses.
  if (!deps.relayConfigured || !deps.mailer) return 'no_relay';
  const owner = token.user_id === null ? null : await deps.store.users.get(token.user_id);
  if (!owner) return 'no_owner';
  const hour = deps.now - (deps.now % HOUR_MS);
  if ((await deps.store.counters.hit(`action-error-mail:${owner.id}`, hour, 2 * HOUR_MS)) > ERROR_MAILS_PER_HOUR) return 'rate_limited';
  const name = token.alias ?? token.uuid;
  const lines = [
    `The actions of ${name} reported ${errors.length} error${errors.length === 1 ? '' : 's'} on request ${requestId}:`,
    '',
    ...errors.slice(0, 20).map((e) => `- ${e.action}: ${e.message.slice(0, 500)}`),
    ...(errors.length > 20 ? [`- ... and ${errors.length - 20} more`] : []),
    '',
    `Request: ${deps.baseUrl}/#/${token.uuid}/${requestId}`,
    `At most ${ERROR_MAILS_PER_HOUR} of these e-mails are sent per account an hour.`,
  ];
  await deps.mailer.send({ to: [owner.email], subject: `Action errors on ${name}`.slice(0, 200), text: lines.join('\n'), passes: 0 });
  return 'sent';
}
