// Bodies and queries of the Schedules API (seed: Schedules endpoints). Field formats (URL, method,
// header lines, cron) are checked once more by the Schedule document's JSON Schema.
import { z } from 'zod';
import { INTERVALS } from '../../scheduler/intervals.js';
import { pageNumber, perPage } from '../paging.js';

const optionalInt = (min: number, max: number) =>
  z.preprocess((v) => (v === '' ? null : v), z.coerce.number().int().min(min).max(max).nullable().optional());

export const ScheduleBody = z.object({
  name: z.string().max(255).default(''),
  interval: z.enum(INTERVALS, { error: `must be one of ${INTERVALS.join(', ')}` }),
  cron: z.string().max(200).nullable().optional(),
  request_url: z.string({ error: 'is required' }).min(1).max(4096),
  request_method: z.string().min(1).max(64).default('GET'),
  request_body: z.string().max(1024 * 1024).nullable().optional(),
  request_headers: z.string().max(64 * 1024).nullable().optional(),
  timeout: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.coerce.number().int().min(1).max(30).default(5)),
  require_body: z.string().max(10_000).nullable().optional(),
  require_status_min: optionalInt(100, 599),
  require_status_max: optionalInt(100, 599),
});
export type ScheduleBodyInput = z.infer<typeof ScheduleBody>;

export const ScheduleListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
});

export const ScheduleLogsQuery = z.object({
  sorting: z.enum(['newest', 'oldest']).default('oldest'),
  per_page: perPage(),
  page: pageNumber,
});

export const DocumentQuery = z.object({ format: z.enum(['yaml', 'json']).default('yaml') });

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
