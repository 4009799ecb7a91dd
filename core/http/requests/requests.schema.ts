import { z } from 'zod';
import { headerValue, isHeaderName } from '@capture/sdk/headers';
import { RequestView } from '../../capture/request-view.js';
import { parseTimestampSpan } from '../../util/time.js';
import { pageNumber, perPage } from '../paging.js';

/** The span the date names (a second, a minute or a day); each end of a filter includes all of it. */
const dateParam = z
  .string()
  .transform((v, ctx) => {
    const span = parseTimestampSpan(v);
    if (span === null) {
      ctx.addIssue({ code: 'custom', message: 'must be a date of the form YYYY-MM-DD HH:MM:SS' });
      return z.NEVER;
    }
    return span;
  })
  .optional();

export const RequestFilterQuery = z.object({
  query: z.string().max(4096).optional(),
  date_from: dateParam.describe('Only requests created at or after this time (UTC, YYYY-MM-DD HH:MM:SS; a date alone: from the start of that day)'),
  date_to: dateParam.describe('Only requests created up to the end of this second (UTC, YYYY-MM-DD HH:MM:SS; a date alone: to the end of that day), so one whose created_at is this value is included'),
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
  per_page: z.coerce.number().int().min(1).max(1_000_000).optional().describe("At most this many requests (default: the token's request_limit)"),
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

/** A page of GET /token/{id}/requests. */
export const RequestPage = z.object({
  data: z.array(RequestView),
  total: z.number().int(),
  /** true: a search matched more than COUNT_BOUND (10,000) requests and `total` is that bound, not the exact count. */
  total_capped: z.boolean(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  is_last_page: z.boolean(),
  from: z.number().int(),
  to: z.number().int(),
});
