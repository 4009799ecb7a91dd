import { z } from 'zod';
import { headerValue, isHeaderName } from '../../sdk/headers.js';
import { RedactionEntrySchema } from '../../sdk/redaction.js';
import { parseTimestamp } from '../../util/time.js';
import { pageNumber, perPage } from '../paging.js';

const dateParam = z
  .string()
  .transform((v, ctx) => {
    const t = parseTimestamp(v);
    if (t === null) {
      ctx.addIssue({ code: 'custom', message: 'must be a date of the form YYYY-MM-DD HH:MM:SS' });
      return z.NEVER;
    }
    return t;
  })
  .optional();

export const RequestFilterQuery = z.object({
  query: z.string().max(4096).optional(),
  date_from: dateParam,
  date_to: dateParam,
});

export const RequestListQuery = RequestFilterQuery.extend({
  sorting: z.enum(['newest', 'oldest']).default('oldest'),
  per_page: perPage(),
  page: pageNumber,
});

/** The longest a caller may wait for a matching request (seconds). */
export const MAX_WAIT_SECONDS = 60;

export const WaitQuery = z.object({
  query: z.string().max(4096).optional(),
  after: z
    .string()
    .regex(/^(\d{1,16}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/, 'must be a sorting key (digits) or a request UUID')
    .optional()
    .describe('Only requests newer than this one: its sorting key or its UUID'),
  timeout: z.coerce.number().min(0).max(MAX_WAIT_SECONDS).default(30).describe(`Seconds to wait, at most ${MAX_WAIT_SECONDS}`),
});

export const NoteBody = z.object({ note: z.string().max(10_000).nullable() });

/** 10 MiB of body, in base64. */
export const MAX_SET_RESPONSE_BYTES = 10 * 1024 * 1024;

export const SetResponseBody = z.object({
  status: z.coerce.number().int().min(100).max(599).default(200),
  content: z.string().default(''),
  // The CLI sends name -> array of values; plain name -> string is accepted too.
  headers: z
    .record(z.string(), z.union([headerValue(), z.array(headerValue())]))
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if (!isHeaderName(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
      }
    })
    .default({}),
});

export const ExportQuery = RequestFilterQuery.extend({
  sorting: z.enum(['newest', 'oldest']).default('oldest'),
  per_page: z.coerce.number().int().min(1).max(100_000).optional(),
  format: z.enum(['csv', 'har']).default('csv').describe('CSV, or a HAR 1.2 archive (JSON) with the responses that were sent back'),
});

/** Bytes of a forward target's answer shown; the rest is cut (`truncated`). */
export const MAX_FORWARD_RESPONSE_BYTES = 1024 * 1024;

export const ForwardBody = z.object({
  url: z
    .string()
    .max(8192)
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'must be an http:// or https:// URL')
    .describe('Where to send the request: its method, headers and body go along'),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,20}$/, 'must be an HTTP method such as POST')
    .transform((m) => m.toUpperCase())
    .optional()
    .describe("Instead of the request's own method"),
});

/** A forward target's answer. */
export const ForwardResult = z.object({
  status: z.number().int(),
  headers: z.record(z.string(), z.array(z.string())),
  body: z.string(),
  body_encoding: z.enum(['utf8', 'base64']),
  size: z.number().int().describe('Bytes of body received (at most 1 MiB is kept)'),
  truncated: z.boolean(),
  time: z.number().describe('Seconds from sending to the end of the answer'),
  url: z.string(),
  method: z.string(),
});

/** What a capture URL sent back (HTTP captures). */
export const SentResponseView = z.object({
  status: z.number().int(),
  content_type: z.string(),
  headers: z.record(z.string(), z.string()).describe('Headers sent, besides CORS headers and Content-Length'),
  body: z.string(),
  body_encoding: z.enum(['utf8', 'base64']),
  size: z.number().int().describe('Bytes of the body sent'),
  truncated: z.boolean().describe('The stored body was cut at 64 KiB'),
  source: z
    .enum(['stored', 'default'])
    .describe("stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings"),
});

/** A captured request as the API returns it (documentation, /openapi.json and schemas/). */
export const RequestView = z.object({
  uuid: z.string().uuid(),
  type: z.enum(['web', 'email', 'dns']),
  token_id: z.string().uuid(),
  team_id: z.number().int().nullable(),
  ip: z.string(),
  hostname: z.string(),
  method: z.string(),
  user_agent: z.string(),
  content: z.string().describe('The body as UTF-8 text; `raw` returns the exact bytes'),
  query: z.record(z.string(), z.string()).nullable().describe('Query string: the last value of a repeated key'),
  query_all: z.record(z.string(), z.array(z.string())).nullable().describe('Every value of each query key, in order'),
  response: SentResponseView.optional().describe('What was sent back (HTTP captures; on realtime events only when it was not the default response)'),
  request: z.record(z.string(), z.unknown()).describe('Form fields (urlencoded or multipart)'),
  headers: z.record(z.string(), z.array(z.string())),
  url: z.string(),
  size: z.number().int(),
  files: z.array(z.object({ id: z.string(), name: z.string(), filename: z.string(), size: z.number().int(), content_type: z.string() })),
  custom_action_output: z.array(z.string()),
  custom_action_errors: z.array(z.unknown()),
  redactions: z.array(RedactionEntrySchema).optional().describe('Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values'),
  note: z.string().nullable(),
  time: z.number(),
  sorting: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  country: z.string().optional().describe("Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES)"),
  country_code: z.string().optional().describe('ISO 3166-1 alpha-2 code of the country'),
  region: z.string().optional(),
  city: z.string().optional(),
  sender: z.string().optional(),
  message_id: z.string().optional(),
  destinations: z.array(z.string()).optional(),
  text_content: z.string().optional(),
  html_content: z.string().optional(),
  checks: z.record(z.string(), z.unknown()).optional(),
  dns: z
    .object({
      name: z.string().describe('The name asked, in the case it reached the service'),
      type: z.string(),
      protocol: z.enum(['udp', 'tcp']),
      subdomain: z.string().describe('The labels before the token'),
    })
    .optional(),
});

/** A page of GET /token/{id}/requests. */
export const RequestPage = z.object({
  data: z.array(RequestView),
  total: z.number().int(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  is_last_page: z.boolean(),
  from: z.number().int(),
  to: z.number().int(),
});
