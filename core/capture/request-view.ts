// A captured request as the API (and the realtime channel) shows it: requestView renders it and
// RequestView (zod) documents it for /openapi.json and schemas/request.schema.json.
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { queryAllOf } from './query.js';
import { sentResponseOf } from './sent-response.js';
import { RedactionEntrySchema } from '../shared/redaction.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';

/** The last second formatted: a capture's created_at and updated_at, and captures of the same second, share it. */
let lastSecond = NaN;
let lastText = '';

/** formatTimestamp, without formatting the same second again (it cost a chain run 6 µs of two). */
function timestampText(ms: number): string {
  // Only finite numbers are memoised: anything else formats (or throws) as it always did.
  if (!Number.isFinite(ms)) return formatTimestamp(ms);
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = formatTimestamp(ms);
    lastSecond = second;
  }
  return lastText;
}

/**
 * The `extra` fields that hold a value. Each is optional in RequestView, never nullable: a stored
 * record may carry null for one (imported, or written by an older version), and that must show as
 * absent rather than break the documented shape.
 */
function presentFields(extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extra)) if (value !== null && value !== undefined) out[key] = value;
  return out;
}

/**
 * With `token`, a capture answered with the token's default response shows that response; without
 * (realtime events, actions' view of the request) `response` is only there when it was stored.
 */
export function requestView(r: RequestRecord, token?: TokenRecord): Record<string, unknown> {
  const response = sentResponseOf(r, token);
  const body = r.body;
  return {
    uuid: r.uuid,
    type: r.type,
    token_id: r.token_id,
    team_id: r.team_id,
    ip: r.ip,
    hostname: r.hostname,
    method: r.method,
    http_version: r.httpVersion ?? null,
    user_agent: r.user_agent,
    content: body.toString('utf8'),
    // Lossless for a body that is not UTF-8 text (`content` then holds replacement characters).
    content_base64: body.length && !isUtf8(body) ? body.toString('base64') : undefined,
    query: r.query,
    request: r.form ?? {},
    headers: r.headers,
    url: r.url,
    size: r.size,
    files: r.files,
    custom_action_output: r.custom_action_output,
    custom_action_errors: r.custom_action_errors,
    note: r.note,
    time: r.time,
    sorting: r.sorting,
    ...presentFields(r.extra),
    // Every value of each query key (`query` keeps the last); `extra` holds it when a key repeated.
    query_all: queryAllOf(r.query, r.extra),
    // What was sent back; `extra.response` is its stored form, never shown as is.
    response: response ?? undefined,
    created_at: timestampText(r.created_at),
    updated_at: timestampText(r.updated_at),
  };
}

/** What a capture URL sent back (HTTP captures). */
export const SentResponseView = z.object({
  status: z.number().int(),
  content_type: z.string(),
  headers: z.record(z.string(), z.string()).describe('Headers sent, besides CORS headers and Content-Length'),
  body: z.string(),
  body_encoding: z.enum(['utf8', 'base64']),
  size: z.number().int().describe('Bytes of the body sent'),
  truncated: z.boolean().describe('The stored body was cut at 64 KiB'),
  source: z.enum(['stored', 'default']).describe("stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings"),
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
  http_version: z.enum(['1.0', '1.1', '2']).nullable().describe('The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS'),
  user_agent: z.string(),
  content: z.string().describe('The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent'),
  content_base64: z.string().optional().describe('The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text'),
  content_encoding: z.string().optional().describe('The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br`'),
  decoded: z.boolean().optional().describe('With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body'),
  decode_error: z.string().optional().describe('With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent'),
  encoded_size: z.number().int().optional().describe('With `content_encoding`: bytes of the body as sent (`size` counts the decoded body)'),
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
