// Forward a stored HTTP capture to another URL (the page's "Forward" button): its method, headers
// and body are sent through the one outbound client, so the outbound policy decides which
// addresses may be reached, and the target's answer comes back to show.
import { isUtf8 } from 'node:buffer';
import { HttpError, ValidationError } from '../../errors.js';
import { OutboundError, type OutboundClient } from '../../net/outbound.js';
import type { RequestRecord } from '../../store/types.js';
import { MAX_FORWARD_RESPONSE_BYTES } from './requests.schema.js';

/** A forward gives up after this long (the HTTP Request action's inline limit). */
export const FORWARD_TIMEOUT_MS = 15_000;

/**
 * Headers of the capture that describe its own connection or transfer, not the request: the
 * client sets them again for the new one. Accept-Encoding goes too, so the answer arrives
 * readable rather than compressed.
 */
const NOT_FORWARDED = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection', 'proxy-authorization', 'expect', 'accept-encoding']);

export interface ForwardAnswer {
  status: number;
  headers: Record<string, string[]>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  size: number;
  truncated: boolean;
  time: number;
  url: string;
  method: string;
}

export async function forwardRequest(http: OutboundClient, r: RequestRecord, url: string, method = r.method): Promise<ForwardAnswer> {
  if (r.type !== 'web') throw new ValidationError(`Only HTTP requests can be forwarded; this one is ${r.type === 'email' ? 'an e-mail' : 'a DNS lookup'}`, { request: ['is not an HTTP request'] });
  const headers: Record<string, string[]> = {};
  // A body decoded at capture goes as it is stored, decoded: its Content-Encoding no longer applies.
  const decoded = r.extra.decoded === true;
  for (const [name, values] of Object.entries(r.headers)) if (!NOT_FORWARDED.has(name) && !(decoded && name === 'content-encoding')) headers[name] = values;
  try {
    const res = await http.request({
      method,
      url,
      headers,
      body: r.body.length ? r.body : undefined,
      timeoutMs: FORWARD_TIMEOUT_MS,
      maxBodyBytes: MAX_FORWARD_RESPONSE_BYTES,
      // The target's own answer is what is shown, a redirect included.
      maxRedirects: 0,
    });
    const text = isUtf8(res.body);
    return {
      status: res.status,
      headers: res.headers,
      body: res.body.toString(text ? 'utf8' : 'base64'),
      body_encoding: text ? 'utf8' : 'base64',
      size: res.body.length,
      truncated: res.truncated,
      time: res.timeMs / 1000,
      url: res.url,
      method,
    };
  } catch (err) {
    throw forwardError(err, url);
  }
}

/** The outbound client's failures as API errors: the address is the caller's input (422), the target's failure a gateway error. */
function forwardError(err: unknown, url: string): unknown {
  if (!(err instanceof OutboundError)) return err;
  switch (err.code) {
    case 'refused':
    case 'invalid_url':
    case 'dns':
      return new ValidationError(`url: ${err.message}`, { url: [err.message] });
    case 'timeout':
      return new HttpError(504, `${url} did not answer within ${FORWARD_TIMEOUT_MS / 1000} s`);
    default:
      return new HttpError(502, err.message);
  }
}
