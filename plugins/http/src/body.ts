// Request bodies of the HTTP Request modes, and what Forward mode takes from the capture.
import { randomBytes } from 'node:crypto';
import { textBytes } from '@capture/sdk/bytes';
import type { CapturedRequest } from '@capture/sdk';

export interface FormPart {
  name: string;
  /** Variable text: sent as its bytes (textBytes), so a file's bytes from $request.file.x.content$ pass unchanged. */
  content: string;
  /** Set: the part is a file. */
  filename?: string;
  contentType?: string;
}

/** Quotes a name or filename for Content-Disposition the way browsers do (HTML's form encoding). */
function dispositionValue(s: string): string {
  return s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** A multipart/form-data body and its Content-Type (with the boundary). */
export function multipartBody(parts: FormPart[], boundary = `----CaptureFormBoundary${randomBytes(12).toString('hex')}`): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${dispositionValue(part.name)}"`;
    if (part.filename !== undefined) head += `; filename="${dispositionValue(part.filename)}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType.replace(/[\r\n]/g, '')}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), textBytes(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** `a=1&b=x+y`: application/x-www-form-urlencoded, spaces as `+`. */
export function urlencodedBody(pairs: Array<[string, string]>): string {
  return new URLSearchParams(pairs).toString();
}

/** The query string of the captured request, as received (without `?`). */
export function rawQuery(request: CapturedRequest): string {
  const q = request.url.indexOf('?');
  if (q === -1) return '';
  const hash = request.url.indexOf('#', q);
  return request.url.slice(q + 1, hash === -1 ? undefined : hash);
}

/** `url` with `query` appended (after its own query, if it has one). */
export function withQuery(url: string, query: string): string {
  if (!query) return url;
  const hash = url.indexOf('#');
  const [base, fragment] = hash === -1 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}${query}${fragment}`;
}

/**
 * Headers that describe the connection to this service, not the message: they are not forwarded.
 * Accept-Encoding is dropped too, so the response arrives readable in `$<prefix>.content$`.
 */
const NOT_FORWARDED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'proxy-connection', 'proxy-authorization', 'accept-encoding']);

/** The captured request's headers to forward (repeated ones joined with ", "). */
export function forwardedHeaders(request: CapturedRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headers ?? {})) {
    if (NOT_FORWARDED.has(name.toLowerCase())) continue;
    const list = (Array.isArray(values) ? values : [values]).filter((v) => v !== undefined && v !== null).map(String);
    if (list.length) out[name] = list.join(', ');
  }
  return out;
}
