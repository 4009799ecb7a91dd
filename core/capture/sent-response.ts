// The answer a capture sent back, kept with the request so the API and the page can show it.
// Most captures are answered with their token's default response, which can be rebuilt from the
// token and the URL: those store nothing (the SQLite capture path stays a plain row). Only an
// answer that actions or the set-response endpoint made is stored, in the record's `extra`
// (like `query_all`), its body cut at MAX_STORED_RESPONSE_BYTES.
import { isUtf8 } from 'node:buffer';
import { sendableHeaders } from '@capture/sdk/headers';
import type { ResponseDraft as CapturedResponse } from '@capture/sdk';
import type { RequestRecord, TokenRecord } from '../store/types.js';

/** Bytes of a changed answer's body kept with the request. */
export const MAX_STORED_RESPONSE_BYTES = 64 * 1024;

/** How `extra.response` holds it: headers as pairs (any name is safe as data in either store). */
interface StoredResponse {
  status: number;
  content_type: string;
  headers: Array<[string, string]>;
  body: string;
  encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
}

/** The answer as the API shows it (RequestView.response). */
export interface SentResponse {
  status: number;
  content_type: string;
  headers: Record<string, string>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
  /** `stored`: kept when it was sent; `default`: rebuilt from the token's current default response. */
  source: 'stored' | 'default';
}

/** A module constant: a regular expression literal is a new object each time it is evaluated (every capture). */
const STATUS = /^[1-5]\d\d$/;

/**
 * The status a capture URL asks for: `/{token}/201` or `/{token}/201/...`, where `afterRef` is the
 * index of the slash after the token (or -1; 0 on a subdomain capture, whose path starts after
 * the token). Null when there is none.
 */
export function pathStatus(path: string, afterRef: number): number | null {
  const end = afterRef + 4;
  const segment = afterRef >= 0 && (path.length === end || path[end] === '/') ? path.slice(afterRef + 1, end) : '';
  // Most capture URLs have no status segment: no pattern run on an empty one.
  return segment !== '' && STATUS.test(segment) ? Number(segment) : null;
}

/** Keeps an answer that is not the token's default with the request (before it is stored). */
export function rememberResponse(record: RequestRecord, response: CapturedResponse): void {
  const bytes = typeof response.content === 'string' ? Buffer.from(response.content, 'utf8') : response.content;
  const truncated = bytes.length > MAX_STORED_RESPONSE_BYTES;
  let end = Math.min(bytes.length, MAX_STORED_RESPONSE_BYTES);
  // Cut before a character the bound splits, so UTF-8 text stays text.
  if (truncated) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const kept = bytes.subarray(0, end);
  const text = isUtf8(kept);
  const stored: StoredResponse = {
    status: response.status,
    content_type: response.contentType,
    headers: Object.entries(sendableHeaders(response.headers)),
    body: kept.toString(text ? 'utf8' : 'base64'),
    encoding: text ? 'utf8' : 'base64',
    size: bytes.length,
    truncated,
  };
  record.extra.response = stored;
}

type Defaults = Pick<TokenRecord, 'default_status' | 'default_content' | 'default_content_type'>;

/**
 * What an HTTP capture was answered: the stored answer, or else the token's default response
 * (with the URL's status segment). Null for e-mail and DNS captures, and when neither is known.
 * Headers are those the capture handler sets besides CORS and Content-Length.
 */
export function sentResponseOf(r: RequestRecord, token?: Defaults): SentResponse | null {
  if (r.type !== 'web') return null;
  const fixed = { 'X-Request-Id': r.uuid, 'X-Token-Id': r.token_id };
  const stored = r.extra.response as StoredResponse | undefined;
  if (stored) {
    return {
      status: stored.status,
      content_type: stored.content_type,
      headers: { 'Content-Type': stored.content_type, ...fixed, ...Object.fromEntries(stored.headers) },
      body: stored.body,
      body_encoding: stored.encoding,
      size: stored.size,
      truncated: stored.truncated,
      source: 'stored',
    };
  }
  if (!token) return null;
  const path = urlPath(r.url);
  return {
    status: pathStatus(path, path.indexOf('/', 1)) ?? token.default_status,
    content_type: token.default_content_type,
    headers: { 'Content-Type': token.default_content_type, ...fixed },
    body: token.default_content,
    body_encoding: 'utf8',
    size: Buffer.byteLength(token.default_content),
    truncated: false,
    source: 'default',
  };
}

function urlPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.replace(/[?#].*$/, '');
  }
}
