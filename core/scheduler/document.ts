// A schedule is a workflow document of kind Schedule; the Schedules API is a view onto it.
//
//   apiVersion: capture/v1
//   kind: Schedule
//   metadata:
//     name: Ping the status page
//     owner: ops@example.com          # user e-mail or id; needed for files in workflows/
//     group_id: 3                      # optional: a group of the owner's team
//   spec:
//     interval: 5-minute               # monthly weekly daily hourly 10-minute 5-minute 1-minute cron
//     cron: null                       # five-field expression (UTC) when interval is cron
//     request:
//       method: POST
//       url: https://example.com/health?at=$timestamp$
//       headers: ["Authorization: Bearer $global.token$", "Content-Type: application/json"]
//       body: '{"ping": true}'
//       timeout: 5                     # seconds, 1 to 30
//     checks:
//       require_body: ok
//       require_status_min: 200
//       require_status_max: 299
//       tls_expiry_alert_days: 14      # https targets: alert when the certificate expires within 14 days
//
// Structure is checked by the workflow kernel (core/workflows/kernel.ts: ajv against
// schemas/schedule.schema.json, generated from the zod schema below); what JSON Schema cannot say
// (a valid cron expression, min <= max) is checked after it.
import YAML from 'yaml';
import { z } from 'zod';
import { ValidationError, type FieldErrors } from '../errors.js';
import { API_VERSION, defineKind, throwFieldErrors } from '../workflows/kernel.js';
import { INTERVALS, cronError, type Interval } from './intervals.js';

/** RFC 9110 token characters (`$` among them, so `$variable$` methods and header names pass). */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
export const METHOD_PATTERN = `^${TOKEN}$`;
export const HEADER_LINE_PATTERN = `^${TOKEN}:.*$`;
export const URL_PATTERN = '^[hH][tT][tT][pP][sS]?://[^\\s/?#]+\\S*$';

export const ScheduleDocumentSchema = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('Schedule'),
  metadata: z.strictObject({
    name: z.string().max(255),
    owner: z
      .union([z.string().min(1).max(255), z.number().int().min(1)])
      .optional()
      .describe('User e-mail or id; files in workflows/ need it'),
    description: z.string().max(2000).optional(),
    group_id: z.number().int().min(1).nullable().optional().describe("A group of the owner's team; left out when replacing: unchanged"),
  }),
  spec: z.strictObject({
    interval: z.enum(INTERVALS),
    cron: z.string().max(200).nullable().optional().describe('Five-field cron expression in UTC, used when interval is cron'),
    request: z.strictObject({
      method: z.string().regex(new RegExp(METHOD_PATTERN)).max(64).default('GET'),
      url: z.string().regex(new RegExp(URL_PATTERN)).max(4096).describe('Absolute http(s) URL; variables are replaced'),
      headers: z
        .array(z.string().regex(new RegExp(HEADER_LINE_PATTERN)).max(8192))
        .max(100)
        .default([])
        .describe('`Name: value` lines'),
      body: z
        .string()
        .max(1024 * 1024)
        .default(''),
      timeout: z.number().int().min(1).max(30).default(5).describe('Seconds'),
    }),
    checks: z
      .strictObject({
        require_body: z.string().max(10_000).nullable().optional(),
        require_status_min: z.number().int().min(100).max(599).nullable().optional(),
        require_status_max: z.number().int().min(100).max(599).nullable().optional(),
        tls_expiry_alert_days: z.number().int().min(1).max(365).nullable().optional().describe('https targets: alert when the TLS certificate expires within this many days'),
      })
      .default({}),
  }),
});

export type ScheduleDocument = z.output<typeof ScheduleDocumentSchema>;

const PATTERN_MESSAGES: Record<string, string> = {
  [METHOD_PATTERN]: 'must be an HTTP method (a token such as GET or POST)',
  [HEADER_LINE_PATTERN]: 'must be a `Name: value` line',
  [URL_PATTERN]: 'must be an absolute http or https URL',
};

export const ScheduleKind = defineKind<ScheduleDocument>({
  kind: 'Schedule',
  schema: ScheduleDocumentSchema,
  schemaFile: 'schedule.schema.json',
  title: 'Schedule workflow document',
  patternMessages: PATTERN_MESSAGES,
  refine(doc) {
    if (doc.spec.interval !== 'cron') doc.spec.cron = null;
    // Upper case, except variable names (`$method$` stays as typed).
    doc.spec.request.method = doc.spec.request.method.replace(/(\$[^$]*\$)|([^$]+)/g, (_m, v: string | undefined, text: string | undefined) => v ?? text!.toUpperCase());
    throwFieldErrors(semanticErrors(doc));
    return doc;
  },
});

/** The JSON Schema of Schedule documents, as written to schemas/schedule.schema.json. */
export function scheduleJsonSchema(): Record<string, unknown> {
  return ScheduleKind.jsonSchema();
}

/** Field errors a valid structure may still have. */
function semanticErrors(doc: ScheduleDocument): FieldErrors {
  const errors: FieldErrors = {};
  const { spec } = doc;
  if (spec.interval === 'cron') {
    const problem = spec.cron ? cronError(spec.cron) : 'is required when interval is cron';
    if (problem) errors['spec.cron'] = [problem];
  }
  if (!spec.request.url.includes('$')) {
    try {
      new URL(spec.request.url);
    } catch {
      errors['spec.request.url'] = ['must be an absolute http or https URL'];
    }
  }
  const { require_status_min: min, require_status_max: max } = spec.checks;
  if (typeof min === 'number' && typeof max === 'number' && min > max) errors['spec.checks.require_status_max'] = ['must not be below require_status_min'];
  // A URL that starts with a variable may turn out https; one typed as http:// has no certificate.
  if (typeof spec.checks.tls_expiry_alert_days === 'number' && /^http:/i.test(spec.request.url)) errors['spec.checks.tls_expiry_alert_days'] = ['needs an https request URL'];
  return errors;
}

/** Validates a document (the kernel's structure check, then the semantic rules) and fills its defaults. Throws a 422. */
export function normaliseScheduleDocument(input: unknown): ScheduleDocument {
  return ScheduleKind.validate(input);
}

export function toYaml(doc: ScheduleDocument): string {
  return YAML.stringify(doc, { lineWidth: 0 });
}

/** The Schedules API body (seed: Schedule body). */
export interface ScheduleFields {
  name: string;
  interval: Interval;
  cron: string | null;
  request_url: string;
  request_method: string;
  request_body: string;
  request_headers: string;
  timeout: number;
  require_body: string | null;
  require_status_min: number | null;
  require_status_max: number | null;
  tls_expiry_alert_days: number | null;
}

/** `Name: value` lines; blank lines and a trailing CR are dropped. */
export function headerLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
}

/** The document an API body describes. The field names of errors are the document's. */
export function documentFromFields(f: ScheduleFields, owner?: string | number): ScheduleDocument {
  const doc = {
    apiVersion: API_VERSION,
    kind: 'Schedule',
    metadata: { name: f.name, ...(owner !== undefined ? { owner } : {}) },
    spec: {
      interval: f.interval,
      cron: f.interval === 'cron' ? f.cron : null,
      request: { method: f.request_method, url: f.request_url, headers: headerLines(f.request_headers), body: f.request_body, timeout: f.timeout },
      checks: {
        require_body: f.require_body,
        require_status_min: f.require_status_min,
        require_status_max: f.require_status_max,
        ...(f.tls_expiry_alert_days !== null ? { tls_expiry_alert_days: f.tls_expiry_alert_days } : {}),
      },
    },
  };
  return normaliseScheduleDocument(doc);
}

export function fieldsFromDocument(doc: ScheduleDocument): ScheduleFields {
  const { spec } = doc;
  return {
    name: doc.metadata.name,
    interval: spec.interval,
    cron: spec.cron ?? null,
    request_url: spec.request.url,
    request_method: spec.request.method,
    request_body: spec.request.body,
    request_headers: spec.request.headers.join('\n'),
    timeout: spec.request.timeout,
    require_body: spec.checks.require_body ?? null,
    require_status_min: spec.checks.require_status_min ?? null,
    require_status_max: spec.checks.require_status_max ?? null,
    tls_expiry_alert_days: spec.checks.tls_expiry_alert_days ?? null,
  };
}

/** Document field paths to the API's field names, for 422s of the Schedules API. */
const API_FIELD: Record<string, string> = {
  'metadata.name': 'name',
  'spec.interval': 'interval',
  'spec.cron': 'cron',
  'spec.request.method': 'request_method',
  'spec.request.url': 'request_url',
  'spec.request.body': 'request_body',
  'spec.request.timeout': 'timeout',
  'spec.checks.require_body': 'require_body',
  'spec.checks.require_status_min': 'require_status_min',
  'spec.checks.require_status_max': 'require_status_max',
  'spec.checks.tls_expiry_alert_days': 'tls_expiry_alert_days',
  'metadata.group_id': 'group_id',
};

export function toApiFieldErrors(e: ValidationError): ValidationError {
  const errors: FieldErrors = {};
  for (const [k, v] of Object.entries(e.errors ?? {})) {
    const key = API_FIELD[k] ?? (k.startsWith('spec.request.headers') ? 'request_headers' : k);
    (errors[key] ??= []).push(...v);
  }
  const first = Object.entries(errors)[0];
  return new ValidationError(first ? `${first[0]}: ${first[1][0]}` : e.message, errors);
}
