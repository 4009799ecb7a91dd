// Sending one outgoing request for the `http` and `send_request` actions: authentication, retries,
// the result variables `<prefix>.content|status|headers|url|error` and the output lines. Every
// request goes through ctx.services.http, core's client with the outbound policy.
import { bytesText } from '@capture/sdk/bytes';
import type { ActionContext, HttpRequest, HttpResponse } from '@capture/sdk';
import { digestAuthorization, parseDigestChallenge } from './digest.js';
import { authenticateMessage, negotiateMessage, parseChallenge, splitUser } from './ntlm.js';

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface Auth {
  mode: 'basic' | 'digest' | 'ntlm';
  username: string;
  password: string;
}

export interface Retry {
  /** Retries after the first request (so `retries + 1` requests at most). */
  retries: number;
  delayMs: number;
  /** Statuses that count as success (`200`, `20*`, `2**, 301`); others are retried. */
  requireStatus?: string;
}

export interface SendOptions {
  /** Variable name prefix. */
  prefix: string;
  /** Unset: core's default for the run (15 s inline, 60 s queued). */
  timeoutMs?: number;
  insecureTls?: boolean;
  auth?: Auth;
  retry?: Retry;
}

// ---- headers ----------------------------------------------------------------------------------

const headerKey = (headers: Record<string, string>, name: string) => Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());

export function hasHeader(headers: Record<string, string>, name: string): boolean {
  return headerKey(headers, name) !== undefined;
}

/** Sets a header, replacing one of the same name in any case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const existing = headerKey(headers, name);
  if (existing !== undefined) delete headers[existing];
  headers[name] = value;
}

/** Adds a header; a second value of the same name is joined with ", " (how HTTP combines them). */
export function addHeader(headers: Record<string, string>, name: string, value: string): void {
  const existing = headerKey(headers, name);
  if (existing === undefined) headers[name] = value;
  else headers[existing] = `${headers[existing]}, ${value}`;
}

// ---- status patterns --------------------------------------------------------------------------

/** A `require_status` entry: digits with `*` (any digits) or `x` (one digit): `200`, `20*`, `2xx`. */
export const STATUS_PATTERN = /^[0-9*xX]+$/;

/** The entries of a `require_status` value (comma or space separated). */
export function statusPatterns(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/** True when `status` matches one of the patterns (`20*` matches 200 to 209). */
export function statusMatches(patterns: string, status: number): boolean {
  return statusPatterns(patterns).some((p) => new RegExp(`^${p.replace(/\*/g, '\\d*').replace(/[xX]/g, '\\d')}$`).test(String(status)));
}

// ---- sending ----------------------------------------------------------------------------------

/** The URL for output lines: without a password. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return url;
  }
}

function normalUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

function errorMessage(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  // fetch's "fetch failed" hides the reason (ECONNREFUSED...) in its cause.
  const cause = e.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string' && typeof cause.message === 'string' && !e.message.includes(cause.code)) return `${e.message}: ${cause.message}`;
  return e.message;
}

/** Failures that another attempt cannot fix: a bad URL, an address the outbound policy refuses. */
function isPermanent(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'invalid_url' || code === 'refused' || e instanceof PermanentError;
}

class PermanentError extends Error {}

function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PermanentError(`Invalid URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new PermanentError(`Only http and https URLs can be requested, not ${u.protocol}`);
}

/** One request, answering a Digest challenge with a second one when asked to. */
async function attempt(ctx: ActionContext<unknown>, base: HttpRequest, auth: Auth | undefined): Promise<HttpResponse> {
  if (auth?.mode === 'ntlm') return ntlmAttempt(ctx, base, auth);
  const res = await ctx.services.http.request(base);
  if (auth?.mode !== 'digest' || res.status !== 401) return res;
  const challenge = parseDigestChallenge(res.headers['www-authenticate']);
  if (!challenge) return res;
  const target = new URL(res.url ?? base.url);
  const body = base.body === undefined ? undefined : Buffer.isBuffer(base.body) ? base.body : Buffer.from(base.body);
  const authorization = digestAuthorization(challenge, { username: auth.username, password: auth.password, method: base.method, uri: target.pathname + target.search, body });
  const headers = { ...base.headers };
  setHeader(headers, 'Authorization', authorization);
  return ctx.services.http.request({ ...base, url: target.href, headers });
}

/**
 * NTLM: negotiate, then answer the server's challenge, both on one kept-alive connection (NTLM
 * authenticates the connection). A server that does not ask (no 401 with an NTLM challenge) is
 * answered by the first request.
 */
async function ntlmAttempt(ctx: ActionContext<unknown>, base: HttpRequest, auth: Auth): Promise<HttpResponse> {
  const http = ctx.services.http;
  if (!http.session) throw new PermanentError('NTLM needs an HTTP client that keeps a connection open; this one cannot');
  const session = http.session();
  try {
    const first = await session.request({ ...base, headers: withAuthorization(base.headers, negotiateMessage()) });
    if (first.status !== 401) return first;
    const challenge = parseChallenge(first.headers['www-authenticate']);
    if (!challenge) return first;
    const { user, domain } = splitUser(auth.username);
    const authorization = authenticateMessage(challenge, { username: user, password: auth.password, domain: domain ?? challenge.targetName });
    return await session.request({ ...base, url: first.url ?? base.url, headers: withAuthorization(base.headers, authorization) });
  } finally {
    session.close();
  }
}

function withAuthorization(headers: Record<string, string> | undefined, value: string): Record<string, string> {
  const out = { ...headers };
  setHeader(out, 'Authorization', value);
  return out;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Sends `req` (retrying as `opts.retry` says), sets the result variables and logs a summary line.
 * A failed request is not an action error: its message goes to `<prefix>.error`.
 */
export async function sendAndStore(ctx: ActionContext<unknown>, req: Outgoing, opts: SendOptions): Promise<void> {
  const { services, signal, vars } = ctx;
  const p = opts.prefix;
  const headers = { ...req.headers };
  const auth = opts.auth;
  if (auth?.mode === 'basic') setHeader(headers, 'Authorization', `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`);

  const base: HttpRequest = { method: req.method, url: req.url, headers, signal };
  if (req.body !== undefined) base.body = req.body;
  if (opts.timeoutMs !== undefined) base.timeoutMs = opts.timeoutMs;
  if (opts.insecureTls) base.insecureTls = true;

  const retries = opts.retry?.retries ?? 0;
  const delayMs = opts.retry?.delayMs ?? 0;
  const required = opts.retry?.requireStatus;
  const started = services.clock.now();
  let res: HttpResponse | undefined;
  let failure: string | undefined;
  let retried = 0;

  for (;;) {
    res = undefined;
    failure = undefined;
    let permanent = false;
    try {
      checkUrl(req.url);
      res = await attempt(ctx, base, auth);
    } catch (e) {
      failure = errorMessage(e);
      permanent = isPermanent(e);
    }
    if (signal.aborted) break;
    const reason = failure ?? (res && required && !statusMatches(required, res.status) ? `status ${res.status} does not match ${required}` : undefined);
    if (!reason || permanent || retried >= retries) break;
    if (delayMs >= ctx.timeLeftMs()) {
      ctx.log(`Not retrying (${reason}): the actions' time budget would run out`);
      break;
    }
    retried++;
    ctx.log(`Retry ${retried} of ${retries} in ${delayMs / 1000} s: ${reason}`);
    await services.clock.sleep(delayMs, signal);
    if (signal.aborted) break;
  }

  const ms = Math.round(services.clock.now() - started);
  const after = retried ? ` after ${retried === 1 ? '1 retry' : `${retried} retries`}` : '';
  const what = `${req.method} ${shownUrl(req.url)}`;
  if (res) {
    // UTF-8 answers are text; other bytes (an image, a PDF) are kept as bytes in the variable text.
    vars.set(`${p}.content`, bytesText(res.body));
    vars.set(`${p}.status`, res.status);
    vars.set(`${p}.headers`, JSON.stringify(res.headers));
    vars.set(`${p}.url`, res.url ?? req.url);
    const mismatch = required && !statusMatches(required, res.status) ? `Status ${res.status} does not match the required status ${required}` : undefined;
    if (mismatch) vars.set(`${p}.error`, mismatch);
    const redirected = res.url && res.url !== normalUrl(req.url) ? ` (from ${shownUrl(res.url)})` : '';
    ctx.log(
      `${what} responded ${res.status}${redirected} in ${ms} ms${after}, ${plural(res.body.length, 'byte')}${res.truncated ? ' (truncated)' : ''}; result in $${p}.status$, $${p}.content$` +
        (mismatch ? `; ${mismatch}, in $${p}.error$` : ''),
    );
  } else {
    const message = failure ?? 'aborted';
    vars.set(`${p}.error`, message);
    vars.set(`${p}.url`, req.url);
    ctx.log(`${what} failed after ${ms} ms${after}: ${message}; error in $${p}.error$`);
  }
}
