// Schedule intervals (seed: Schedule.interval). Every interval is a cron expression in UTC: the
// presets run at the start of their period (hourly at :00, daily at 00:00, weekly on Mondays at
// 00:00, monthly on the 1st at 00:00), as the webhook.site docs describe.
import { CronExpressionParser } from 'cron-parser';

export const INTERVALS = ['monthly', 'weekly', 'daily', 'hourly', '10-minute', '5-minute', '1-minute', 'cron'] as const;
export type Interval = (typeof INTERVALS)[number];

const PRESETS: Record<Exclude<Interval, 'cron'>, string> = {
  monthly: '0 0 1 * *',
  weekly: '0 0 * * 1',
  daily: '0 0 * * *',
  hourly: '0 * * * *',
  '10-minute': '*/10 * * * *',
  '5-minute': '*/5 * * * *',
  '1-minute': '* * * * *',
};

/** The cron expression a schedule runs on. */
export function cronFor(interval: Interval, cron: string | null | undefined): string {
  if (interval === 'cron') {
    if (!cron) throw new Error('A cron expression is required when interval is cron');
    return cron.trim();
  }
  return PRESETS[interval];
}

/**
 * Why a user's cron expression is not accepted, or null. Five fields (minute hour day-of-month
 * month day-of-week) or a macro such as `@hourly`; seconds are not offered.
 */
export function cronError(expr: string): string | null {
  const text = expr.trim();
  if (!text) return 'must not be empty';
  if (!text.startsWith('@') && text.split(/\s+/).length !== 5) return 'must have five fields: minute hour day-of-month month day-of-week';
  try {
    CronExpressionParser.parse(text, { tz: 'UTC' }).next();
    return null;
  } catch (e) {
    return `is not a valid cron expression (${(e as Error).message})`;
  }
}

/** The first run strictly after `after` (epoch ms), in UTC. Throws on an invalid expression. */
export function nextRunAfter(expr: string, after: number): number {
  const it = CronExpressionParser.parse(expr, { tz: 'UTC', currentDate: new Date(after) });
  let next = it.next().toDate().getTime();
  // cron-parser may return the current instant when `after` sits exactly on a tick.
  while (next <= after) next = it.next().toDate().getTime();
  return next;
}

/** Next run of a schedule after `after`. */
export function nextRun(interval: Interval, cron: string | null | undefined, after: number): number {
  return nextRunAfter(cronFor(interval, cron), after);
}
