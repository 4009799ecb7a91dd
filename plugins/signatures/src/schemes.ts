// How each sender signs its webhooks, as pure functions of the received request and the secret.
// Signatures are over the bytes as sent (never re-encoded text), and every comparison is
// constant-time over equal-length buffers; a length difference is public (it is the algorithm's).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import querystring from 'node:querystring';

export interface SignedRequest {
  /** First value of a header, by name (any case). */
  header(name: string): string | undefined;
  body: Buffer;
  /** The full URL the sender posted to (Twilio signs it). */
  url: string;
  /** Seconds since the epoch, now. */
  nowS: number;
}

export interface Verdict {
  valid: boolean;
  reason: string;
}

export type Algorithm = 'sha1' | 'sha256' | 'sha512';
export type Encoding = 'hex' | 'base64';

const OK: Verdict = { valid: true, reason: 'ok' };
const MISMATCH: Verdict = { valid: false, reason: 'signature mismatch' };
const missing = (header: string): Verdict => ({ valid: false, reason: `missing header ${header}` });

export function hmac(algorithm: Algorithm, key: string | Buffer, ...parts: Array<string | Buffer>): Buffer {
  const h = createHmac(algorithm, key);
  for (const p of parts) h.update(p);
  return h.digest();
}

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The signature text as bytes, or null when it is not valid in its encoding. */
function decode(text: string, encoding: Encoding): Buffer | null {
  const t = text.trim();
  if (encoding === 'hex') return HEX.test(t) && t.length % 2 === 0 ? Buffer.from(t, 'hex') : null;
  return BASE64.test(t) ? Buffer.from(t, 'base64') : null;
}

/** True when any candidate equals the expected digest; every candidate is compared. */
function matchesAny(expected: Buffer, candidates: Array<string | undefined>, encoding: Encoding): boolean {
  let found = false;
  for (const c of candidates) {
    const given = c === undefined ? null : decode(c, encoding);
    if (given && given.length === expected.length && timingSafeEqual(given, expected)) found = true;
  }
  return found;
}

/** Null when the timestamp (seconds) is within tolerance (0 = not checked), else the verdict. */
function stale(timestamp: string, req: SignedRequest, toleranceS: number): Verdict | null {
  if (!/^\d+$/.test(timestamp.trim())) return { valid: false, reason: `timestamp is not a number of seconds: ${timestamp.slice(0, 40)}` };
  // Whole seconds, as the senders' libraries count (Stripe, Slack, Standard Webhooks floor now);
  // a timestamp that far in the future is refused too, as Standard Webhooks does.
  const age = Math.abs(Math.floor(req.nowS) - Number(timestamp));
  return toleranceS > 0 && age > toleranceS ? { valid: false, reason: `timestamp outside tolerance (${age} s)` } : null;
}

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. */
export function github(req: SignedRequest, secret: string): Verdict {
  const header = req.header('x-hub-signature-256');
  if (header === undefined) return missing('X-Hub-Signature-256');
  const given = header.trim().startsWith('sha256=') ? header.trim().slice(7) : undefined;
  return matchesAny(hmac('sha256', secret, req.body), [given], 'hex') ? OK : MISMATCH;
}

/** Stripe: `Stripe-Signature: t=<s>,v1=<hex>[,v1=...]`, HMAC-SHA256 of `<t>.<body>`. */
export function stripe(req: SignedRequest, secret: string, toleranceS: number): Verdict {
  const header = req.header('stripe-signature');
  if (header === undefined) return missing('Stripe-Signature');
  const pairs = header.split(',').map((p) => p.trim().split('=') as [string, string?]);
  const t = pairs.find(([k]) => k === 't')?.[1];
  const v1 = pairs.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || v1.length === 0) return { valid: false, reason: 'Stripe-Signature has no t= or no v1= signature' };
  const expected = hmac('sha256', secret, `${t}.`, req.body);
  if (!matchesAny(expected, v1, 'hex')) return MISMATCH;
  return stale(t, req, toleranceS) ?? OK;
}

/** Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<body>">`. */
export function slack(req: SignedRequest, secret: string, toleranceS: number): Verdict {
  const header = req.header('x-slack-signature');
  if (header === undefined) return missing('X-Slack-Signature');
  const ts = req.header('x-slack-request-timestamp');
  if (ts === undefined) return missing('X-Slack-Request-Timestamp');
  const given = header.trim().startsWith('v0=') ? header.trim().slice(3) : undefined;
  if (!matchesAny(hmac('sha256', secret, `v0:${ts}:`, req.body), [given], 'hex')) return MISMATCH;
  return stale(ts, req, toleranceS) ?? OK;
}

/** Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`. */
export function shopify(req: SignedRequest, secret: string): Verdict {
  const header = req.header('x-shopify-hmac-sha256');
  if (header === undefined) return missing('X-Shopify-Hmac-Sha256');
  return matchesAny(hmac('sha256', secret, req.body), [header], 'base64') ? OK : MISMATCH;
}

/**
 * Standard Webhooks (Svix): `webhook-signature: v1,<base64> [v1,<base64>...]`, HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` keyed by the base64 secret after its `whsec_` prefix.
 * Svix's own `svix-*` header names are accepted too.
 */
export function standardWebhooks(req: SignedRequest, secret: string, toleranceS: number): Verdict {
  const pick = (name: string) => req.header(`webhook-${name}`) ?? req.header(`svix-${name}`);
  const [id, ts, sig] = [pick('id'), pick('timestamp'), pick('signature')];
  if (id === undefined) return missing('webhook-id');
  if (ts === undefined) return missing('webhook-timestamp');
  if (sig === undefined) return missing('webhook-signature');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const given = sig
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  if (!matchesAny(hmac('sha256', key, `${id}.${ts}.`, req.body), given, 'base64')) return MISMATCH;
  return stale(ts, req, toleranceS) ?? OK;
}

/** The URL split without normalising it (the path and query keep the characters Twilio signed). */
function splitUrl(url: string) {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (!m) return null;
  const [prefix, scheme, authority] = m as unknown as [string, string, string];
  const userEnd = authority.lastIndexOf('@');
  const hostPort = authority.slice(userEnd + 1);
  const portAt = hostPort.indexOf(':', hostPort.lastIndexOf(']') + 1);
  return { scheme, user: authority.slice(0, userEnd + 1), host: portAt === -1 ? hostPort : hostPort.slice(0, portAt), port: portAt === -1 ? '' : hostPort.slice(portAt), rest: url.slice(prefix.length) };
}

/**
 * The URLs Twilio may have signed for the one it posted to: without and with the default port
 * (Twilio signs `https://host:443/...` on some routes), then the same after WHATWG normalisation
 * and with the query re-encoded the way Node's legacy `querystring` does. These are the variants
 * Twilio's own library (`validateRequest`) accepts.
 */
function twilioUrls(url: string): string[] {
  const ports = (u: string): string[] => {
    const p = splitUrl(u);
    if (!p) return [u];
    const bare = p.scheme + p.user + p.host + p.rest;
    const withPort = p.port ? u : p.scheme + p.user + p.host + (p.scheme.toLowerCase() === 'https://' ? ':443' : ':80') + p.rest;
    return [bare, withPort];
  };
  const legacy = (u: string): string => {
    const q = u.indexOf('?');
    return q === -1 || q === u.length - 1 ? u : `${u.slice(0, q)}?${querystring.stringify(querystring.parse(u.slice(q + 1)))}`;
  };
  const urls = ports(url);
  let normalised: string | undefined;
  try {
    normalised = new URL(url).toString();
  } catch {
    normalised = undefined;
  }
  if (normalised !== undefined) {
    const [bare, withPort] = ports(normalised) as [string, string?];
    urls.push(bare, ...(withPort ? [withPort] : []), legacy(bare), ...(withPort ? [legacy(withPort)] : []));
  }
  return [...new Set(urls)];
}

/**
 * Twilio: `X-Twilio-Signature: <base64 HMAC-SHA1 of the URL followed, for a form post, by each
 * parameter's name and value, sorted by name>` keyed by the account's auth token. Any other body
 * (JSON) is covered by a `bodySHA256=<hex SHA-256 of the body>` query parameter Twilio adds to
 * the URL it signs; a non-empty body without it is not signed at all and is refused. When `url`
 * (the configured URL) has no bodySHA256, the one in `receivedUrl` is appended as Twilio does.
 */
export function twilio(req: SignedRequest, authToken: string, isForm: boolean, receivedUrl: string = req.url): Verdict {
  const header = req.header('x-twilio-signature');
  if (header === undefined) return missing('X-Twilio-Signature');
  let url = req.url;
  let params = '';
  if (isForm) {
    // Each distinct name/value pair once, in code-unit order by name, then by value for a
    // repeated name (Twilio's libraries sort a set of the values).
    const pairs = [...new Map([...new URLSearchParams(req.body.toString('utf8'))].map((kv) => [JSON.stringify(kv), kv])).values()];
    pairs.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
    params = pairs.map(([k, v]) => k + v).join('');
  } else {
    const query = (u: string) => u.slice(u.indexOf('?') + 1 || u.length).split('#')[0]!;
    let bodyHash = new URLSearchParams(query(url)).get('bodySHA256');
    const received = new URLSearchParams(query(receivedUrl)).get('bodySHA256');
    if (bodyHash === null && received !== null) {
      url += `${url.includes('?') ? '&' : '?'}bodySHA256=${encodeURIComponent(received)}`;
      bodyHash = received;
    }
    if (bodyHash === null && req.body.length > 0) return { valid: false, reason: 'the body is not signed: the URL has no bodySHA256 parameter' };
    if (bodyHash !== null && !matchesAny(createHash('sha256').update(req.body).digest(), [bodyHash], 'hex')) return { valid: false, reason: 'body does not match bodySHA256' };
  }
  const matched = twilioUrls(url).filter((u) => matchesAny(hmac('sha1', authToken, u, params), [header], 'base64')).length > 0;
  return matched ? OK : MISMATCH;
}

export interface GenericOptions {
  algorithm: Algorithm;
  header: string;
  encoding: Encoding;
  /** Text before the signature in the header (`sha256=`), removed before comparing. */
  prefix: string;
  /** What was signed (the body, or a template with the body in it). */
  signed: Buffer;
  timestampHeader?: string;
  toleranceS: number;
}

/** Any HMAC scheme: the header holds prefix + encoded HMAC of `signed`. */
export function generic(req: SignedRequest, secret: string, o: GenericOptions): Verdict {
  const header = req.header(o.header);
  if (header === undefined) return missing(o.header);
  let ts: string | undefined;
  if (o.timestampHeader) {
    ts = req.header(o.timestampHeader);
    if (ts === undefined) return missing(o.timestampHeader);
  }
  const trimmed = header.trim();
  const given = trimmed.startsWith(o.prefix) ? trimmed.slice(o.prefix.length) : undefined;
  if (!matchesAny(hmac(o.algorithm, secret, o.signed), [given], o.encoding)) return MISMATCH;
  return (ts !== undefined ? stale(ts, req, o.toleranceS) : null) ?? OK;
}
