// Error notifications of schedules (seed: Events, schedule check), through the channels the owner
// set (PUT /schedules/notifications): e-mail through the service's mailer (the SMTP relay,
// SMTP_RELAY_URL) and a webhook URL. De-duplicated per schedule: at most one notification per
// SCHEDULE_NOTIFY_WINDOW_SECONDS window, counted in the shared store so several processes agree;
// the next one says how many failures went unreported. A failing 1-minute schedule therefore sends
// 24 notifications a day with the default hour, not 1440.
// TLS expiry alerts (tls-expiry.ts) go the same ways, and to the error log, at most once a UTC day
// per schedule.
import type { Logger } from '../logger.js';
import type { OutboundClient } from '../net/outbound.js';
import type { NotificationSettings, Store } from '../store/types.js';
import { formatTimestamp, type Clock } from '../util/time.js';
import type { ScheduleDocument } from './document.js';
import type { FailureNotice } from './runner.js';
import { logView, scheduleView } from './views.js';

/** The part of the mail module's Mailer (shared as 'mailer') that notifications use. */
export interface MailerLike {
  send(mail: { to: string[]; subject: string; text?: string; passes: number }, signal?: AbortSignal): Promise<unknown>;
}

export interface NotifierDeps {
  store: Store;
  http: OutboundClient;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /** The mailer, looked up when needed (the mail module may start after the scheduler). */
  mailer(): MailerLike | undefined;
  /** Length of a de-duplication window. */
  windowMs: number;
  /** Base URL for links in messages. */
  baseUrl(): string | null;
  /** Told about each TLS alert that is sent (the day's first of the schedule), e.g. for the error log. */
  tlsAlertSent?(notice: FailureNotice): void;
}

/** TLS expiry alerts of a schedule are sent at most once in this window (a UTC day). */
export const TLS_ALERT_WINDOW_MS = 86_400_000;

export interface Notifier {
  notify(notice: FailureNotice): Promise<void>;
  /** A run whose TLS expiry alert fired (log.tls_alert): told at most once a day per schedule. */
  tlsAlert(notice: FailureNotice): Promise<void>;
  /** Resolves when every delivery started so far has finished. */
  idle(): Promise<void>;
}

export const DEFAULT_SETTINGS = { email: null, email_enabled: false, webhook_url: null } as const;

export function createNotifier(deps: NotifierDeps): Notifier {
  const pending = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.finally(() => pending.delete(p)).catch(() => undefined);
    return p;
  };

  async function deliver({ schedule, log }: FailureNotice): Promise<void> {
    const settings: Omit<NotificationSettings, 'user_id' | 'updated_at'> = (await deps.store.schedules.getNotificationSettings(schedule.user_id)) ?? DEFAULT_SETTINGS;
    if (!settings.email_enabled && !settings.webhook_url) return;
    const now = deps.clock.now();
    const windowStart = now - (now % deps.windowMs);
    const key = `schedule-notify:${schedule.id}`;
    const count = await deps.store.counters.hit(key, windowStart, deps.windowMs * 2);
    if (count > 1) {
      deps.logger.debug('schedule notification suppressed', { schedule: schedule.id, failuresThisWindow: count });
      return;
    }
    // Failures after the previous window's notification went unreported.
    const unreported = Math.max(0, (await deps.store.counters.peek(key, windowStart - deps.windowMs)) - 1);
    const doc = schedule.document as unknown as ScheduleDocument;
    const name = doc.metadata.name || `#${schedule.id}`;
    const reason = log.error ?? `server error ${log.response_status}`;
    const base = deps.baseUrl();
    const lines = [
      `Schedule "${name}" (#${schedule.id}) failed at ${formatTimestamp(log.created_at)} UTC.`,
      '',
      `Request:  ${doc.spec.request.method} ${doc.spec.request.url}`,
      `Status:   ${log.response_status || 'no response'}`,
      `Error:    ${reason}`,
      `Time:     ${log.time} s`,
    ];
    if (unreported > 0) lines.push('', `${unreported} more failure${unreported === 1 ? '' : 's'} since the previous notification.`);
    lines.push('', `Further failures of this schedule are reported at most once every ${Math.round(deps.windowMs / 60_000)} minutes.`);
    if (base) lines.push(`Logs: ${base}/schedules/${schedule.id}/logs`);
    await send(schedule, settings, `Schedule "${name}" failed: ${reason}`, lines, { event: 'schedule.failed', schedule: scheduleView(schedule), log: logView(log), unreported_failures: unreported });
  }

  async function deliverTlsAlert(notice: FailureNotice): Promise<void> {
    const { schedule, log } = notice;
    const now = deps.clock.now();
    const day = now - (now % TLS_ALERT_WINDOW_MS);
    if ((await deps.store.counters.hit(`schedule-tls:${schedule.id}`, day, TLS_ALERT_WINDOW_MS * 2)) > 1) {
      deps.logger.debug('schedule TLS alert already sent today', { schedule: schedule.id });
      return;
    }
    deps.tlsAlertSent?.(notice);
    const settings: Omit<NotificationSettings, 'user_id' | 'updated_at'> = (await deps.store.schedules.getNotificationSettings(schedule.user_id)) ?? DEFAULT_SETTINGS;
    if (!settings.email_enabled && !settings.webhook_url) return;
    const doc = schedule.document as unknown as ScheduleDocument;
    const name = doc.metadata.name || `#${schedule.id}`;
    const base = deps.baseUrl();
    const lines = [
      `Schedule "${name}" (#${schedule.id}): ${log.tls_alert}.`,
      '',
      `Request:  ${doc.spec.request.method} ${doc.spec.request.url}`,
      `Alert:    when the certificate expires within ${doc.spec.checks.tls_expiry_alert_days} days`,
      '',
      'This alert is sent at most once a day for this schedule.',
    ];
    if (base) lines.push(`Logs: ${base}/schedules/${schedule.id}/logs`);
    await send(schedule, settings, `Schedule "${name}": ${log.tls_alert}`, lines, { event: 'schedule.tls_expiry', schedule: scheduleView(schedule), log: logView(log) });
  }

  /** Sends one notification on every channel the owner turned on; a broken channel does not stop the others. */
  async function send(schedule: FailureNotice['schedule'], settings: Omit<NotificationSettings, 'user_id' | 'updated_at'>, subject: string, lines: string[], payload: Record<string, unknown>): Promise<void> {
    const jobs: Array<Promise<void>> = [];
    if (settings.email_enabled) {
      jobs.push(
        (async () => {
          const mailer = deps.mailer();
          if (!mailer) throw new Error('no mailer is configured (the mail module is not running)');
          const to = settings.email ?? (await deps.store.users.get(schedule.user_id))?.email;
          if (!to) throw new Error('the user has no e-mail address');
          await mailer.send({ to: [to], subject: subject.slice(0, 200), text: lines.join('\n'), passes: 0 });
        })().catch((err) => deps.logger.warn('schedule e-mail notification failed', { schedule: schedule.id, err })),
      );
    }
    if (settings.webhook_url) {
      jobs.push(
        deps.http
          .request({
            method: 'POST',
            url: settings.webhook_url,
            headers: { 'Content-Type': 'application/json', 'User-Agent': 'capture-schedules' },
            body: JSON.stringify(payload),
            timeoutMs: 10_000,
            maxBodyBytes: 64 * 1024,
          })
          .then((res) => {
            if (res.status >= 400) deps.logger.warn('schedule webhook notification rejected', { schedule: schedule.id, status: res.status });
          })
          .catch((err) => deps.logger.warn('schedule webhook notification failed', { schedule: schedule.id, err })),
      );
    }
    await Promise.all(jobs);
  }

  return {
    notify(notice) {
      return track(deliver(notice));
    },
    tlsAlert(notice) {
      return track(deliverTlsAlert(notice));
    },
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}
