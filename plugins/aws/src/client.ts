// One signed AWS request through the chain's HTTP client (so the server's outbound policy
// applies), with AWS XML errors (<Code>, <Message>) turned into a readable action error.
import type { ActionContext, HttpResponse } from '@capture/sdk';
import type { AwsAccount } from './provider.js';
import { sign } from './sigv4.js';

export const REQUEST_TIMEOUT_MS = 15_000;

export interface AwsRequest {
  /** What is being done, for messages: `S3 PutObject`. */
  what: string;
  service: 's3' | 'cloudfront';
  region: string;
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: string | Buffer;
  maxBodyBytes?: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function xmlUnescape(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

/** The text of the first <tag>...</tag> in an XML document (no namespaces, no nesting needed here). */
export function xmlText(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`).exec(xml);
  return m ? xmlUnescape(m[1]!).trim() : undefined;
}

const HINTS: Record<string, string> = {
  SignatureDoesNotMatch: 'check the secret access key of the AWS provider',
  InvalidAccessKeyId: 'check the access key ID of the AWS provider',
  InvalidClientTokenId: 'check the access key ID of the AWS provider',
  ExpiredToken: 'the session token of the AWS provider has expired',
  InvalidToken: 'check the session token of the AWS provider',
  RequestTimeTooSkewed: "the server's clock is too far from AWS's",
};
const WRONG_REGION = new Set(['PermanentRedirect', 'AuthorizationHeaderMalformed', 'IllegalLocationConstraintException', 'TemporaryRedirect']);

/** `S3 GetObject failed: NoSuchKey: The specified key does not exist. (HTTP 404)` */
export function describeAwsError(what: string, res: HttpResponse): string {
  const text = res.body.toString('utf8');
  const code = xmlText(text, 'Code');
  if (!code) {
    const snippet = text
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200);
    return `${what} failed: HTTP ${res.status}${snippet ? `: ${snippet}` : ''}`;
  }
  const message = xmlText(text, 'Message');
  const region = res.headers['x-amz-bucket-region'] || xmlText(text, 'Region');
  const hint = WRONG_REGION.has(code) && region ? `the bucket is in region ${region}: set the action's region to it` : HINTS[code];
  return `${what} failed: ${code}${message ? `: ${message}` : ''} (HTTP ${res.status})${hint ? `; ${hint}` : ''}`;
}

/** Signs and sends; a status outside 2xx (redirects included: they would break the signature) throws. */
export async function awsRequest(ctx: Pick<ActionContext, 'services' | 'signal'>, account: AwsAccount, req: AwsRequest): Promise<HttpResponse> {
  const signed = sign({
    method: req.method,
    url: req.url,
    headers: req.headers,
    body: req.body,
    service: req.service,
    region: req.region,
    credentials: account.credentials,
    date: new Date(ctx.services.clock.now()),
  });
  let res: HttpResponse;
  try {
    res = await ctx.services.http.request({
      method: req.method,
      url: req.url.href,
      headers: signed.headers,
      body: req.body,
      timeoutMs: REQUEST_TIMEOUT_MS,
      signal: ctx.signal,
      maxRedirects: 0,
      maxBodyBytes: req.maxBodyBytes,
    });
  } catch (err) {
    throw new Error(`${req.what} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (res.status < 200 || res.status >= 300) throw new Error(describeAwsError(req.what, res));
  return res;
}
