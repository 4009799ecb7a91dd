// Schedules as the API reads and shows them: the body a schedule is created or replaced with, the
// notification settings, and the views of a schedule, a log entry and the settings (views.ts makes
// them; core/http/schedules serves them). Field formats (URL, method, header lines, cron) are checked
// once more by the Schedule document's JSON Schema.
import { z } from 'zod';
import { INTERVALS } from './intervals.js';

const optionalInt = (min: number, max: number) => z.preprocess((v) => (v === '' ? null : v), z.coerce.number().int().min(min).max(max).nullable().optional());

export const ScheduleBody = z.object({
  name: z.string().max(255).default(''),
  interval: z.enum(INTERVALS, { error: `must be one of ${INTERVALS.join(', ')}` }),
  cron: z.string().max(200).nullable().optional(),
  request_url: z.string({ error: 'is required' }).min(1).max(4096),
  request_method: z.string().min(1).max(64).default('GET'),
  request_body: z
    .string()
    .max(1024 * 1024)
    .nullable()
    .optional(),
  request_headers: z
    .string()
    .max(64 * 1024)
    .nullable()
    .optional(),
  timeout: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.coerce.number().int().min(1).max(30).default(5)),
  require_body: z.string().max(10_000).nullable().optional(),
  require_status_min: optionalInt(100, 599),
  require_status_max: optionalInt(100, 599),
  tls_expiry_alert_days: optionalInt(1, 365).describe('https targets: alert when the TLS certificate expires within this many days (null: off)'),
  group_id: z.number().int().min(1).nullable().optional().describe("A group of the caller's team (users limited to groups: one of theirs); left out on update: unchanged"),
});
export type ScheduleBodyInput = z.infer<typeof ScheduleBody>;

export const NotificationSettingsBody = z.object({
  email_enabled: z.boolean().optional(),
  email: z.string().email().max(255).nullable().optional(),
  webhook_url: z
    .string()
    .max(4096)
    .regex(/^https?:\/\//i, 'must be an absolute http or https URL')
    .nullable()
    .optional(),
});

/** A schedule (views.ts scheduleView): the document's fields, flattened, with its state. */
export const ScheduleView = z.object({
  id: z.number().int(),
  name: z.string(),
  interval: z.enum(INTERVALS),
  cron: z.string().nullable(),
  request_url: z.string(),
  request_method: z.string(),
  request_body: z.string(),
  request_headers: z.string().describe('`Name: value` lines'),
  timeout: z.number().int(),
  require_body: z.string().nullable(),
  require_status_min: z.number().int().nullable(),
  require_status_max: z.number().int().nullable(),
  tls_expiry_alert_days: z.number().int().nullable(),
  group_id: z.number().int().nullable(),
  user_id: z.number().int(),
  last_run_at: z.string().nullable(),
  last_status: z.number().int().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

/** One run of a schedule (views.ts logView). */
export const ScheduleLogView = z.object({
  id: z.number().int(),
  schedule_id: z.number().int(),
  response_status: z.number().int(),
  response_headers: z.record(z.string(), z.array(z.string())),
  response_body: z.string(),
  time: z.number().describe('Seconds'),
  error: z.string().nullable(),
  tls_expires_at: z.string().nullable().describe("When the target's TLS certificate expires (schedules with a TLS expiry alert)"),
  tls_days_left: z.number().int().nullable().describe('Whole days until then at the run; negative: expired'),
  tls_alert: z.string().nullable().describe('Why the TLS expiry alert fired on this run; null: it did not'),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

/** Where a user's schedule error notifications go (`email` null: their own address). */
export const NotificationSettingsView = z.object({
  user_id: z.number().int(),
  email: z.string().nullable(),
  email_enabled: z.boolean(),
  webhook_url: z.string().nullable(),
  updated_at: z.string().nullable(),
});
