// Response and request headers: the one place that decides what a header name and value may hold.
//
// A header that came from user input (an action's `headers` text, a script's respond(), the
// set-response API, a token's default content type) must never add a header of its own or make
// node:http throw while answering (ERR_INVALID_CHAR is a 500 after the capture was stored):
// - `headerLines()` marks an action parameter as `Name: value` lines; the templating module splits
//   it before replacing variables and passes replaced values through `headerSafe`, so a variable
//   holding CR/LF cannot start a new line;
// - `headerProblem` refuses what the owner typed or sent (API 422s, script and action errors);
// - `sendableHeaders` / `headerSafe` clean whatever is left at the one exit, for stored values.
import { z } from 'zod';
import type { ResponseDraft } from './types.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What node:http sends in a value: tab, visible ASCII, Latin-1 (obs-text). */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
const CONTROL_RUN = /[\0-\x08\x0a-\x1f\x7f]+/g;
const BEYOND_LATIN1 = /[^\0-\xff]/;
const BEYOND_LATIN1_RUN = /[^\0-\xff]+/g;
/** A line break in header text: CRLF, LF, or a bare CR (which some proxies also end a line on). */
export const LINE_BREAK = /\r\n?|\n/;

/**
 * Headers of one connection: the server sets them for its own answer, never a response draft.
 * HTTP/2 forbids the connection-specific ones (connection, keep-alive, proxy-connection,
 * transfer-encoding, upgrade): node:http2 throws on them, so one in a draft would fail the answer.
 */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'content-length']);

export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/** Why `value` cannot be a header value, or undefined when it can. */
export function headerValueProblem(value: string): string | undefined {
  if (!UNSENDABLE.test(value)) return undefined;
  if (/[\r\n]/.test(value)) return 'must not contain line breaks';
  if (BEYOND_LATIN1.test(value)) return 'must contain only Latin-1 characters';
  return 'must not contain control characters';
}

/** Why `name: value` cannot be sent as a header, or undefined when it can. */
export function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_NAME.test(name)) return `${JSON.stringify(name)} is not a valid header name`;
  const problem = headerValueProblem(value);
  return problem && `the value of header ${name} ${problem}`;
}

/**
 * `value` made sendable: each run of line breaks or control characters becomes one space (the
 * ends trimmed), and characters beyond Latin-1 are percent-encoded as UTF-8 (`日` -> `%E6%97%A5`).
 * Percent-encoding keeps them ASCII: node:http writes a head as UTF-8 or Latin-1 depending on the
 * body's type, so raw bytes would not arrive the same way twice.
 */
export function headerSafe(value: string): string {
  if (!UNSENDABLE.test(value)) return value;
  return value
    .replace(CONTROL_RUN, ' ')
    .trim()
    .replace(BEYOND_LATIN1_RUN, (run) => Array.from(Buffer.from(run, 'utf8'), (b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join(''));
}

/** A response's headers as they may be sent: bad names and connection headers dropped, values made sendable. */
export function sendableHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || CONNECTION_HEADERS.has(name.toLowerCase())) continue;
    out[name] = headerSafe(String(value));
  }
  return out;
}

/**
 * Sets one header on the response being built: Content-Type goes to `contentType`, and a name
 * replaces the same name in another case. Throws naming the problem on a bad name or value.
 */
export function setResponseHeader(draft: ResponseDraft, name: string, value: string): void {
  const problem = headerProblem(name, value);
  if (problem) throw new Error(`Invalid response header: ${problem}`);
  const lower = name.toLowerCase();
  if (lower === 'content-type') {
    draft.contentType = value;
    return;
  }
  for (const existing of Object.keys(draft.headers)) if (existing.toLowerCase() === lower) delete draft.headers[existing];
  draft.headers[name] = value;
}

/** One `Name: value` per line (blank lines ignored) -> pairs; throws naming the first bad line. */
export function parseHeaderLines(text: string | null | undefined): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  for (const line of (text ?? '').split(LINE_BREAK)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name)) throw new Error(`Invalid header line ${JSON.stringify(line)}: expected "Name: value"`);
    const value = line.slice(colon + 1).trim();
    const problem = headerValueProblem(value);
    if (problem) throw new Error(`Invalid header line ${JSON.stringify(line)}: the value ${problem}`);
    headers.push([name, value]);
  }
  return headers;
}

/** Text that must be sendable as a header value (a content type, a set-response header): 422 otherwise. */
export function headerValue() {
  return z.string().superRefine((value, ctx) => {
    const problem = headerValueProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** Marks the parameters whose text is header lines, for the templating module. */
const HEADER_LINES = z.registry<{ headerLines: true }>();

/**
 * An action parameter holding `Name: value` lines, parsed into pairs (a bad line is a parameter
 * error). Variables in it are replaced line by line and cannot add a line (see the file header).
 */
export function headerLines() {
  const schema = z
    .string()
    .nullish()
    .transform((text, ctx) => {
      try {
        return parseHeaderLines(text);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    });
  HEADER_LINES.add(schema, { headerLines: true });
  return schema;
}

/** Top-level parameters of an action's schema declared with `headerLines()`. */
export function headerLineFields(parameters: z.ZodType): string[] {
  const shape = objectShape(parameters);
  return shape ? Object.keys(shape).filter((key) => isHeaderLines(shape[key]!)) : [];
}

type Def = { innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

function isHeaderLines(schema: z.ZodType): boolean {
  // `.describe()`, `.optional()`... wrap or clone the marked schema: look through them.
  for (let s: z.ZodType | undefined = schema; s; s = defOf(s).innerType ?? defOf(s).in) {
    if (HEADER_LINES.get(s)) return true;
  }
  return false;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  for (let s: z.ZodType | undefined = schema; s; s = defOf(s).innerType ?? defOf(s).in) {
    const shape = defOf(s).shape;
    if (shape) return shape;
  }
  return undefined;
}
