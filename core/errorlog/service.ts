// The accounts' error log: one list per account of what went wrong while nobody was watching:
// actions that reported an error on a capture (inline or queued) and schedule runs that failed.
// Recording never waits for the store and never fails its caller: entries are buffered and written
// in batches (one transaction per flush), so a chain that fails on every capture costs the capture
// path one array push. The API reads the store (core/http/errors/), so an entry shows there within
// FLUSH_MS.
import type { Logger } from '../logger.js';
import type { ErrorLogRecord, Millis, ScheduleLogRecord, ScheduleRecord, Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';
import { accountOfSchedule, accountOfToken } from './scope.js';

export type NewErrorLogEntry = Omit<ErrorLogRecord, 'id' | 'read'>;

/** How long an entry waits for others to be written with it. */
export const FLUSH_MS = 100;
/** Entries held at most while the store is slow; beyond, new ones are counted and dropped. */
export const MAX_PENDING = 10_000;
/** Longest message kept (an action's error text may carry a whole response). */
export const MAX_MESSAGE = 2000;

export interface ErrorLogOptions {
  /** Entries kept per account (ERROR_LOG_KEEP). */
  keep: number;
  flushMs?: number;
}

export class ErrorLog {
  private pending: NewErrorLogEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;

  constructor(
    private readonly store: Pick<Store, 'errorLog'>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly logger: Logger,
    private readonly opts: ErrorLogOptions,
  ) {}

  /** Errors of one capture's chain run; `types` names each action's type by its ID. */
  actionErrors(token: TokenRecord, requestId: string | null, errors: ReadonlyArray<{ action: string; message: string }>, types: ReadonlyMap<string, string>): void {
    const now = this.clock.now();
    for (const e of errors) {
      this.add({
        user_id: accountOfToken(token),
        source: 'action',
        token_id: token.uuid,
        request_id: requestId,
        action_id: e.action || null,
        action_type: (e.action && types.get(e.action)) || null,
        schedule_id: null,
        schedule_name: null,
        message: e.message,
        created_at: now,
      });
    }
  }

  /** A failed schedule run (request error, failed check or server error), with its log entry. */
  scheduleFailure(schedule: ScheduleRecord, log: ScheduleLogRecord): void {
    this.addForSchedule(schedule, log.error ?? `Server error: status ${log.response_status}`, log.created_at);
  }

  /** A schedule's TLS expiry alert (the day's first; core/scheduler/notify.ts). */
  scheduleTlsAlert(schedule: ScheduleRecord, log: ScheduleLogRecord): void {
    this.addForSchedule(schedule, log.tls_alert ?? 'TLS certificate alert', log.created_at);
  }

  private addForSchedule(schedule: ScheduleRecord, message: string, at: Millis): void {
    const name = (schedule.document as { metadata?: { name?: unknown } }).metadata?.name;
    this.add({
      user_id: accountOfSchedule(schedule),
      source: 'schedule',
      token_id: null,
      request_id: null,
      action_id: null,
      action_type: null,
      schedule_id: schedule.id,
      schedule_name: typeof name === 'string' ? name : null,
      message,
      created_at: at,
    });
  }

  private add(entry: NewErrorLogEntry): void {
    if (this.pending.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    this.pending.push({ ...entry, message: entry.message.length > MAX_MESSAGE ? `${entry.message.slice(0, MAX_MESSAGE)}…` : entry.message });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushMs ?? FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is buffered; resolves when it is stored (or its failure logged). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    const dropped = this.dropped;
    this.dropped = 0;
    this.writing = this.writing.then(async () => {
      if (dropped) this.logger.warn('error log: entries dropped while the store was behind', { dropped });
      if (!batch.length) return;
      try {
        await this.store.errorLog.add(
          batch.map((e) => ({ ...e, read: false })),
          this.opts.keep,
        );
      } catch (err) {
        this.logger.error('error log: entries could not be stored', { err, entries: batch.length });
      }
    });
    return this.writing;
  }
}
