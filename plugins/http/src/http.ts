// The `http` action (HTTP Request): sends a request in one of five modes and stores the answer in
// `$<variable_name>.content|status|headers|url$`, or the failure in `$<variable_name>.error$`.
import { boolean, choice, defineAction, optionalText, secret, z } from '@capture/sdk';
import { headerLines } from '@capture/sdk/headers';
import { textBytes } from '@capture/sdk/bytes';
import { forwardedHeaders, multipartBody, rawQuery, urlencodedBody, withQuery } from './body.js';
import { group, optionalNumber, prefix } from './params.js';
import { STATUS_PATTERN, addHeader, hasHeader, sendAndStore, setHeader, statusPatterns, type Auth, type Retry } from './send.js';

export const HTTP_METHODS = ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'TRACE'] as const;
export const HTTP_MODES = ['text', 'json', 'multipart', 'urlencoded', 'forward'] as const;
export const MAX_TIMEOUT_SECONDS = 15;
export const DEFAULT_RETRIES = 3;
export const DEFAULT_RETRY_DELAY_SECONDS = 1;

const part = z.object({
  name: z.string().nullish(),
  filename: optionalText(),
  'content-type': optionalText(),
  content: optionalText(),
});

const pair = z.object({
  name: z.string().nullish(),
  value: z.string().nullish(),
});

const requireStatus = optionalText().superRefine((v, ctx) => {
  const bad = v === undefined ? undefined : statusPatterns(v).find((p) => !STATUS_PATTERN.test(p));
  if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `"${bad}" is not a status code pattern (digits, * as a wildcard: 20*)` });
});

export const httpParameters = z
  .object({
    url: z.string().trim().min(1, 'is required'),
    content: optionalText(),
    method: choice(HTTP_METHODS, { upper: true }),
    mode: choice(HTTP_MODES),
    auth: group(
      z.object({
        mode: choice(['basic', 'digest', 'ntlm', 'bearer']),
        username: optionalText(),
        password: secret(optionalText()),
        token: secret(optionalText().describe('The bearer token (mode bearer), sent as "Authorization: Bearer <token>"')),
      }),
    ),
    multipart: z.array(part).nullish(),
    urlencoded: z.array(pair).nullish(),
    headers: headerLines().describe('One "Name: value" header per line'),
    skip_ssl_verification: boolean().nullish(),
    variable_name: prefix('http').describe('Prefix of the result variables'),
    timeout: optionalNumber({ min: 0, max: MAX_TIMEOUT_SECONDS, message: `must be between 0 and ${MAX_TIMEOUT_SECONDS} seconds` }).describe('Seconds; unset: 15 inline, 120 queued (QUEUED_ACTIONS_TIMEOUT_S)'),
    retry: group(
      z.object({
        enabled: boolean().nullish(),
        retries: optionalNumber({ min: 1, max: 10, message: 'must be between 1 and 10' }).describe('Retries after the first request; default 3'),
        delay: optionalNumber({ min: 0, max: 10, message: 'must be between 0 and 10 seconds' }).describe('Seconds between requests; default 1'),
        require_status: requireStatus.describe('Statuses that count as success, * as a wildcard (20*); others are retried too'),
      }),
    ),
  })
  .superRefine((p, ctx) => {
    if (p.auth?.mode === 'bearer' && !p.auth.token?.trim()) ctx.addIssue({ code: 'custom', path: ['auth', 'token'], message: 'is required with bearer auth' });
    if (p.mode === 'multipart' && !p.multipart?.length) ctx.addIssue({ code: 'custom', path: ['multipart'], message: 'is required in multipart mode' });
    if (p.mode === 'urlencoded') {
      p.urlencoded?.forEach((row, i) => {
        if (!row.name) ctx.addIssue({ code: 'custom', path: ['urlencoded', i, 'name'], message: 'is required in urlencoded mode' });
        if (row.value === null || row.value === undefined) ctx.addIssue({ code: 'custom', path: ['urlencoded', i, 'value'], message: 'is required in urlencoded mode' });
      });
    }
  });

export type HttpParameters = z.output<typeof httpParameters>;

/** The method when none is chosen: the captured one in forward mode, else POST with a body, GET without. */
function defaultMethod(p: HttpParameters, capturedMethod: string): string {
  const mode = p.mode ?? 'text';
  if (mode === 'forward') return /^[A-Za-z]+$/.test(capturedMethod) ? capturedMethod.toUpperCase() : 'POST';
  return mode !== 'text' || p.content ? 'POST' : 'GET';
}

export const httpRequest = defineAction({
  type: 'http',
  title: 'HTTP Request',
  category: 'network',
  description:
    'Sends an HTTP request. Modes: text (the content as given), json (also sets Content-Type: application/json), multipart (form fields and files; filename and content-type optional), urlencoded (name/value pairs), forward (the captured method, query string, headers and body; a method given overrides the captured one, headers given are added and replace captured ones of the same name). Headers are "Name: value" per line. The content is sent as its bytes, so a file ($request.file.<name>.content$) or binary variable passes unchanged. Without a method: POST when there is a body, GET otherwise. Auth: basic, digest, ntlm or bearer (the token sent as "Authorization: Bearer <token>"; NTLMv2 over one kept-alive connection; username as DOMAIN\\user, user@domain, or user with the domain of the server\'s challenge). The answer is stored in $<variable_name>.content$ (a binary answer as its bytes), .status, .headers (JSON) and .url (after redirects); a failed request sets $<variable_name>.error$ instead of raising an action error. Timeout at most 15 s; unset, 15 s inline and 120 s queued (the queued budget, QUEUED_ACTIONS_TIMEOUT_S). Retry: on network errors and timeouts, and with require_status (20* matches 200 to 209) on other statuses; default 3 retries 1 s apart.',
  parameters: httpParameters,
  sets: ['<variable_name>.content', '<variable_name>.status', '<variable_name>.headers', '<variable_name>.url', '<variable_name>.error'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const { request } = ctx;
    const mode = params.mode ?? 'text';
    const method = params.method ?? defaultMethod(params, request.method);
    let url = params.url;
    let headers: Record<string, string> = {};
    let body: string | Buffer | undefined;

    if (mode === 'forward') {
      headers = forwardedHeaders(request);
      for (const [name, value] of params.headers) setHeader(headers, name, value);
      url = withQuery(url, rawQuery(request));
      body = ctx.rawBody.length ? ctx.rawBody : undefined;
    } else {
      for (const [name, value] of params.headers) addHeader(headers, name, value);
      // The content is variable text: sent as its bytes, so bytes in it (a file's) pass unchanged.
      if (mode === 'text') body = params.content === undefined ? undefined : textBytes(params.content);
      else if (mode === 'json') {
        body = textBytes(params.content ?? '');
        if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
      } else if (mode === 'urlencoded') {
        body = urlencodedBody((params.urlencoded ?? []).filter((r) => r.name).map((r) => [r.name!, r.value ?? '']));
        if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
      } else {
        const parts = (params.multipart ?? []).filter((p) => p.name).map((p) => ({ name: p.name!, content: p.content ?? '', filename: p.filename, contentType: p['content-type'] }));
        const form = multipartBody(parts);
        body = form.body;
        // The boundary must match the body, so this one wins over a Content-Type given in headers.
        setHeader(headers, 'Content-Type', form.contentType);
      }
    }

    let auth: Auth | undefined;
    if (params.auth?.mode) auth = { mode: params.auth.mode, username: params.auth.username ?? '', password: params.auth.password ?? '', token: params.auth.token?.trim() };
    let retry: Retry | undefined;
    if (params.retry?.enabled) {
      retry = {
        retries: Math.floor(params.retry.retries ?? DEFAULT_RETRIES),
        delayMs: Math.round((params.retry.delay ?? DEFAULT_RETRY_DELAY_SECONDS) * 1000),
        requireStatus: params.retry.require_status?.trim() || undefined,
      };
    }

    await sendAndStore(
      ctx,
      { method, url, headers, body },
      {
        prefix: params.variable_name,
        timeoutMs: params.timeout ? Math.round(params.timeout * 1000) : undefined,
        insecureTls: params.skip_ssl_verification ?? false,
        auth,
        retry,
      },
    );
  },
});
