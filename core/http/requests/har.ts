// HAR 1.2 export (http://www.softwareishard.com/blog/har-12-spec/) of captured HTTP requests, each
// with the response that was sent back, so a browser's network panel or a replay tool can load
// them. E-mail and DNS captures are not HTTP exchanges and are left out (the log's comment says
// how many).
import { isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import { queryAllOf } from '../../capture/query.js';
import { sentResponseOf } from '../../capture/sent-response.js';
import type { RequestRecord, TokenRecord } from '../../store/types.js';

type NameValue = { name: string; value: string };

const pairs = (o: Record<string, string | string[]>): NameValue[] => Object.entries(o).flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).map((value) => ({ name, value })));

function cookiesOf(headers: Record<string, string[]>): NameValue[] {
  return (headers.cookie ?? []).flatMap((line) =>
    line
      .split(';')
      .map((c) => c.trim())
      .filter(Boolean)
      .map((c) => {
        const eq = c.indexOf('=');
        return eq < 0 ? { name: c, value: '' } : { name: c.slice(0, eq), value: c.slice(eq + 1) };
      }),
  );
}

/** HAR's spelling of the version the exchange used (the answer went back in the same). */
const harVersion = (r: RequestRecord): string => (r.httpVersion === '2' ? 'HTTP/2.0' : `HTTP/${r.httpVersion ?? '1.1'}`);

/** When the capture arrived, to the millisecond its sorting key (microseconds) gives. */
function startedAt(r: RequestRecord): string {
  const ms = r.sorting > 1e15 && r.sorting < 1e17 ? Math.floor(r.sorting / 1000) : r.created_at;
  return new Date(ms).toISOString();
}

function entry(r: RequestRecord, token: TokenRecord) {
  const text = isUtf8(r.body);
  const sent = sentResponseOf(r, token)!;
  const waitMs = Math.round(r.time * 1000 * 1000) / 1000;
  return {
    startedDateTime: startedAt(r),
    time: waitMs,
    request: {
      method: r.method,
      url: r.url,
      httpVersion: harVersion(r),
      cookies: cookiesOf(r.headers),
      headers: pairs(r.headers),
      queryString: pairs(queryAllOf(r.query, r.extra) ?? {}),
      ...(r.body.length
        ? {
            postData: {
              mimeType: r.content_type ?? '',
              text: r.body.toString(text ? 'utf8' : 'base64'),
              // HAR 1.2 gives postData no encoding; tools that carry binary bodies (Google's martian,
              // Reqable) add `encoding` as content has it, which the spec's author proposed for 1.3.
              ...(text ? {} : { encoding: 'base64', comment: 'The body is not UTF-8 text: text holds its base64' }),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: r.size,
    },
    response: {
      status: sent.status,
      statusText: STATUS_CODES[sent.status] ?? '',
      httpVersion: harVersion(r),
      cookies: [],
      headers: pairs(sent.headers),
      content: {
        size: sent.size,
        mimeType: sent.content_type,
        text: sent.body,
        ...(sent.body_encoding === 'base64' ? { encoding: 'base64' } : {}),
        ...(sent.truncated ? { comment: `Cut at ${Buffer.byteLength(sent.body, sent.body_encoding === 'base64' ? 'base64' : 'utf8')} of ${sent.size} bytes` } : {}),
      },
      redirectURL: sent.headers.Location ?? '',
      headersSize: -1,
      bodySize: sent.size,
      ...(sent.source === 'default' ? { comment: "The token's default response (as it is set now)" } : {}),
    },
    cache: {},
    timings: { send: 0, wait: waitMs, receive: 0 },
    ...(r.note ? { comment: r.note } : {}),
    _request_id: r.uuid,
    _ip: r.ip,
  };
}

/** The archive's opening up to the entries array; entries follow, comma-separated, then harClose. */
export const HAR_OPEN = `{"log":{"version":"1.2","creator":{"name":"capture-service","version":"0.1.0"},"entries":[`;

/** One HTTP capture as a HAR entry (JSON), or null for an e-mail or DNS capture, which is left out. */
export function harEntry(r: RequestRecord, token: TokenRecord): string | null {
  return r.type === 'web' ? JSON.stringify(entry(r, token)) : null;
}

/** Closes the archive; `left` e-mail or DNS captures were left out (said in the log's comment). */
export function harClose(left: number): string {
  return left ? `],"comment":${JSON.stringify(`${left} e-mail or DNS capture(s) left out: they are not HTTP requests`)}}}` : ']}}';
}
