// One run of a schedule: variables replaced in URL, method, headers and body; the request sent
// through the outbound client with the schedule's timeout; the response checked; a log entry
// written; last_run_at / last_status updated; an error notification sent when the run failed.
import { randomUUID } from 'node:crypto';
import { VariableScope } from '@capture/sdk/runner';
import type { Logger } from '../logger.js';
import { OutboundError, type OutboundClient, type PeerCertificate } from '../net/outbound.js';
import type { ScheduleLogRecord, ScheduleRecord, Store } from '../store/types.js';
import { formatTimestamp, type Clock } from '../util/time.js';
import type { ScheduleDocument } from './document.js';
import { readTargetCertificate, type TlsReading } from './tls-expiry.js';

/** Response bodies kept on a log entry. */
export const MAX_LOG_BODY_BYTES = 1024 * 1024;
/** Log entries kept per schedule (the webhook.site docs: the last 100). */
export const LOGS_KEPT = 100;

export interface FailureNotice {
  schedule: ScheduleRecord;
  log: ScheduleLogRecord;
}

export interface RunnerDeps {
  store: Store;
  http: OutboundClient;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /**
   * Told about a failed run (request error, failed check or server error). Not awaited: the
   * notifier tracks its own deliveries (see Notifier.idle()).
   */
  onFailure?(notice: FailureNotice): Promise<void>;
  /** Told about a run whose TLS expiry alert fired (log.tls_alert); the notifier de-duplicates per day. */
  onTlsAlert?(notice: FailureNotice): Promise<void>;
  /** Told about every run and whether it failed (metrics). */
  onRun?(failed: boolean): void;
}

/**
 * Variables a schedule may use besides the owner's global variables (`$global.name$` or `$name$`):
 * the run's date and time in UTC, a fresh UUID, and the schedule itself.
 */
export function builtinVariables(schedule: ScheduleRecord, now: number): Map<string, string> {
  const d = new Date(now);
  const pad = (n: number) => String(n).padStart(2, '0');
  const doc = schedule.document as unknown as ScheduleDocument;
  return new Map([
    ['date', formatTimestamp(now)],
    ['date.iso', d.toISOString()],
    ['date.date', d.toISOString().slice(0, 10)],
    ['date.time', d.toISOString().slice(11, 19)],
    ['date.year', String(d.getUTCFullYear())],
    ['date.month', pad(d.getUTCMonth() + 1)],
    ['date.day', pad(d.getUTCDate())],
    ['date.hour', pad(d.getUTCHours())],
    ['date.minute', pad(d.getUTCMinutes())],
    ['timestamp', String(Math.floor(now / 1000))],
    ['timestamp_ms', String(now)],
    ['uuid', randomUUID()],
    ['schedule.id', String(schedule.id)],
    ['schedule.name', doc.metadata.name],
  ]);
}

export interface PreparedRequest {
  method: string;
  url: string;
  headers: Record<string, string[]>;
  body: string;
}

/** The request of a run, variables replaced. */
export function prepareRequest(doc: ScheduleDocument, scope: VariableScope): PreparedRequest {
  const headers: Record<string, string[]> = {};
  for (const line of doc.spec.request.headers) {
    const text = scope.template(line);
    const i = text.indexOf(':');
    if (i <= 0) continue;
    const name = text.slice(0, i).trim();
    const value = text.slice(i + 1).trim();
    if (!name) continue;
    (headers[name] ??= []).push(value);
  }
  return {
    method: scope.template(doc.spec.request.method).trim().toUpperCase(),
    url: scope.template(doc.spec.request.url).trim(),
    headers,
    body: scope.template(doc.spec.request.body),
  };
}

/** What failed in the response checks (empty when they passed). */
export function checkResponse(doc: ScheduleDocument, status: number, body: string): string[] {
  const { require_body: text, require_status_min: min, require_status_max: max } = doc.spec.checks;
  const failures: string[] = [];
  const low = typeof min === 'number' ? min : null;
  const high = typeof max === 'number' ? max : null;
  if ((low !== null && status < low) || (high !== null && status > high)) {
    failures.push(`status ${status} is outside the required range ${low ?? '*'}-${high ?? '*'}`);
  }
  if (text && !body.includes(text)) failures.push(`the response body does not contain ${JSON.stringify(text)}`);
  return failures;
}

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export async function runSchedule(deps: RunnerDeps, schedule: ScheduleRecord, signal?: AbortSignal): Promise<ScheduleLogRecord> {
  const { store, http, clock } = deps;
  const doc = schedule.document as unknown as ScheduleDocument;
  const started = clock.now();
  const globals = await store.globals.all(`user:${schedule.user_id}`);
  const scope = new VariableScope(builtinVariables(schedule, started), globals);
  const req = prepareRequest(doc, scope);

  let status = 0;
  let headers: Record<string, string[]> = {};
  let body = '';
  let error: string | null = null;
  let time: number;
  let certificate: PeerCertificate | undefined;
  const t0 = performance.now();
  try {
    if (!METHOD.test(req.method)) throw new OutboundError('invalid_url', `The method ${JSON.stringify(req.method)} is not a valid HTTP method`);
    if (req.method.includes('$')) throw new OutboundError('invalid_url', `The method ${JSON.stringify(req.method)} names a variable that is not defined`);
    const res = await http.request({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? (req.body ? req.body : undefined) : req.body,
      timeoutMs: doc.spec.request.timeout * 1000,
      maxBodyBytes: MAX_LOG_BODY_BYTES,
      signal,
    });
    certificate = res.certificate;
    status = res.status;
    headers = res.headers;
    body = res.body.toString('utf8');
    time = res.timeMs / 1000;
    const failed = checkResponse(doc, status, body);
    if (failed.length) error = `Check failed: ${failed.join('; ')}`;
  } catch (e) {
    time = (performance.now() - t0) / 1000;
    error = e instanceof OutboundError ? e.message : `Request failed: ${(e as Error)?.message ?? String(e)}`;
  }

  const alertDays = doc.spec.checks.tls_expiry_alert_days;
  const tlsReading: TlsReading | null = typeof alertDays === 'number' ? await readTargetCertificate(http, req.url, certificate, { alertDays, now: clock.now(), timeoutMs: doc.spec.request.timeout * 1000 }) : null;

  const now = clock.now();
  const log = await store.schedules.addLog(
    { schedule_id: schedule.id, response_status: status, response_headers: headers, response_body: body, time: Math.round(time * 1000) / 1000, error, ...tlsReading, created_at: now, updated_at: now },
    LOGS_KEPT,
  );
  await store.schedules.recordRun(schedule.id, started, status);
  // One line per run for an operator; a failed one (request error, failed check, 5xx) says why.
  const ran = { schedule: schedule.id, name: doc.metadata.name, status, ms: Math.round(time * 1000) };
  if (error !== null || status >= 500) deps.logger.warn('schedule run failed', { ...ran, error: error ?? `server error ${status}` });
  else deps.logger.info('schedule ran', ran);
  deps.onRun?.(error !== null || status >= 500);
  // A timeout, a failed check or a server error is worth telling the owner about.
  if ((error !== null || status >= 500) && deps.onFailure) {
    void deps.onFailure({ schedule: { ...schedule, last_run_at: started, last_status: status }, log }).catch((err) => deps.logger.error('schedule notification failed', { schedule: schedule.id, err }));
  }
  if (log.tls_alert !== null) {
    deps.logger.warn('schedule TLS certificate alert', { schedule: schedule.id, name: doc.metadata.name, alert: log.tls_alert });
    void deps.onTlsAlert?.({ schedule: { ...schedule, last_run_at: started, last_status: status }, log }).catch((err) => deps.logger.error('schedule notification failed', { schedule: schedule.id, err }));
  }
  return log;
}
