// AWS Signature Version 4, written against the published algorithm with node:crypto (no AWS SDK):
// canonical request -> string to sign -> signing key (HMAC chain over date, region, service) ->
// signature, sent in the Authorization header with x-amz-date (and, for S3, x-amz-content-sha256;
// with temporary credentials, x-amz-security-token).
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
import { createHash, createHmac } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  /** The URL as it will be sent (path already percent-encoded for S3 keys). */
  url: string | URL;
  /** Headers to send and sign. `host` is taken from the URL unless given. */
  headers?: Record<string, string>;
  /** The body, hashed into the signature unless `payloadHash` is given. */
  body?: string | Buffer;
  /** A hex SHA-256 of the body, or UNSIGNED_PAYLOAD. */
  payloadHash?: string;
  service: string;
  region: string;
  credentials: AwsCredentials;
  date: Date;
  /** Send x-amz-content-sha256 (S3 requires it). Default: service is `s3`. */
  contentSha256Header?: boolean;
}

export interface Signed {
  /** Headers to send: the given ones, the x-amz-* ones and Authorization (host is left to the HTTP client). */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** `20130524T000000Z` */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** RFC 3986 encoding as AWS wants it: everything but A-Z a-z 0-9 - . _ ~ is %XX (upper-case hex). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The canonical URI of a path as sent: each segment decoded and encoded again strictly, so `$`
 * sent as is and `%24` sign the same. Services other than S3 encode the result once more.
 */
export function canonicalUri(path: string, service: string): string {
  const once = (path || '/')
    .split('/')
    .map((segment) => uriEncode(safeDecode(segment)))
    .join('/');
  const uri = service === 's3' ? once : once.split('/').map(uriEncode).join('/');
  return uri.startsWith('/') ? uri : '/' + uri;
}

/** `b=2&a=1&flag` -> `a=1&b=2&flag=`: pairs encoded strictly, sorted by name then value. */
export function canonicalQuery(search: string): string {
  const query = search.startsWith('?') ? search.slice(1) : search;
  if (!query) return '';
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      return [uriEncode(safeDecode(name)), uriEncode(safeDecode(value))] as const;
    })
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join('&');
}

/** Lower-case names, trimmed values with inner runs of spaces collapsed, sorted by name. */
export function canonicalHeaders(headers: Record<string, string>): { block: string; signedHeaders: string } {
  const byName = new Map<string, string[]>();
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase().trim();
    byName.set(key, [...(byName.get(key) ?? []), String(value).trim().replace(/\s+/g, ' ')]);
  }
  const names = [...byName.keys()].sort();
  return { block: names.map((n) => `${n}:${byName.get(n)!.join(',')}\n`).join(''), signedHeaders: names.join(';') };
}

/** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, yyyymmdd), region), service), "aws4_request"). */
export function signingKey(secretAccessKey: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac('AWS4' + secretAccessKey, day), region), service), 'aws4_request');
}

export function sign(input: SignInput): Signed {
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url;
  const when = amzDate(input.date);
  const day = when.slice(0, 8);
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const payloadHash = input.payloadHash ?? sha256Hex(input.body ?? '');

  const sent: Record<string, string> = { ...input.headers, 'x-amz-date': when };
  if (input.contentSha256Header ?? input.service === 's3') sent['x-amz-content-sha256'] = payloadHash;
  if (input.credentials.sessionToken) sent['x-amz-security-token'] = input.credentials.sessionToken;
  const toSign: Record<string, string> = { ...sent };
  if (!Object.keys(toSign).some((k) => k.toLowerCase() === 'host')) toSign.host = url.host;

  const { block, signedHeaders } = canonicalHeaders(toSign);
  const canonicalRequest = [input.method.toUpperCase(), canonicalUri(url.pathname, input.service), canonicalQuery(url.search), block, signedHeaders, payloadHash].join('\n');
  const stringToSign = [ALGORITHM, when, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(input.credentials.secretAccessKey, day, input.region, input.service))
    .update(stringToSign, 'utf8')
    .digest('hex');

  const headers = Object.fromEntries(Object.entries(sent).filter(([k]) => k.toLowerCase() !== 'host'));
  headers.authorization = `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign, signature };
}
