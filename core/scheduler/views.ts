// How schedules and their log entries look in the API (seed: Schedule, Schedule log entry).
import type { ScheduleLogRecord, ScheduleRecord } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';
import { fieldsFromDocument, type ScheduleDocument } from './document.js';

export function scheduleView(s: ScheduleRecord) {
  return {
    id: s.id,
    ...fieldsFromDocument(s.document as unknown as ScheduleDocument),
    group_id: s.group_id,
    user_id: s.user_id,
    last_run_at: formatTimestamp(s.last_run_at),
    last_status: s.last_status,
    created_at: formatTimestamp(s.created_at),
    updated_at: formatTimestamp(s.updated_at),
  };
}

export function logView(l: ScheduleLogRecord) {
  return {
    id: l.id,
    schedule_id: l.schedule_id,
    response_status: l.response_status,
    response_headers: l.response_headers,
    response_body: l.response_body,
    time: l.time,
    error: l.error,
    tls_expires_at: formatTimestamp(l.tls_expires_at),
    tls_days_left: l.tls_days_left,
    tls_alert: l.tls_alert,
    created_at: formatTimestamp(l.created_at),
    updated_at: formatTimestamp(l.updated_at),
  };
}

export type ScheduleView = ReturnType<typeof scheduleView>;
export type LogView = ReturnType<typeof logView>;
