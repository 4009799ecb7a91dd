// The `dropbox` provider (an OAuth token of a Dropbox app) and the calls of Dropbox API v2: RPC
// endpoints on api.dropboxapi.com take and return JSON; content endpoints on
// content.dropboxapi.com take their arguments as JSON in the Dropbox-API-Arg header and the file
// as the body. Errors are `{"error_summary": "path/not_found/..", "error": {...}}` (409 for an
// endpoint's own errors), or plain text for a malformed call (400).
import { type ActionContext, defineProvider, type HttpResponse, z } from '@capture/sdk';
import { type OAuthAccount, oauthCredentials, openOAuthAccount } from '@capture/sdk/oauth';

export const DROPBOX = 'dropbox';
export const API_BASE_URL = 'https://api.dropboxapi.com';
export const CONTENT_BASE_URL = 'https://content.dropboxapi.com';
export const TOKEN_URL = 'https://api.dropboxapi.com/oauth2/token';

/** At most this much of a downloaded file goes into a variable. */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;

const baseUrl = z.url({ protocol: /^https?$/ }).optional();

export const dropboxSettings = z.object({
  api_base_url: baseUrl.describe(`RPC endpoints (default ${API_BASE_URL})`),
  content_base_url: baseUrl.describe(`Upload and download endpoints (default ${CONTENT_BASE_URL})`),
  token_url: baseUrl.describe(`OAuth2 token endpoint used to renew the access token (default ${TOKEN_URL})`),
});

export const dropboxProvider = defineProvider({
  type: DROPBOX,
  title: 'Dropbox',
  description:
    'A Dropbox account for the Dropbox actions: an OAuth2 access token of a Dropbox app (scopes files.content.write, files.content.read, sharing.write), with refresh_token, client_id and client_secret so it can be renewed.',
  credentials: oauthCredentials,
  settings: dropboxSettings,
});

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** A Dropbox account to call the API with. */
export class Dropbox {
  private constructor(
    private readonly account: OAuthAccount,
    private readonly api: string,
    private readonly content: string,
  ) {}

  static async open(ctx: ActionContext<unknown>, providerId: string): Promise<Dropbox> {
    const settingsOf = (p: { settings: Record<string, unknown> }) => {
      const s = dropboxSettings.safeParse(p.settings ?? {});
      return s.success ? s.data : {};
    };
    const account = await openOAuthAccount(ctx, providerId, { type: DROPBOX, title: 'Dropbox', tokenUrl: (p) => settingsOf(p).token_url ?? TOKEN_URL });
    const s = settingsOf(account.provider);
    return new Dropbox(account, trimSlash(s.api_base_url ?? API_BASE_URL), trimSlash(s.content_base_url ?? CONTENT_BASE_URL));
  }

  /** POSTs JSON to an RPC endpoint (`files/create_folder_v2`) and returns the JSON answer. */
  async rpc<T = Record<string, unknown>>(endpoint: string, arg: unknown, doing: string): Promise<T> {
    const res = await this.account.send({
      method: 'POST',
      url: `${this.api}/2/${endpoint}`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(arg),
    });
    if (res.status !== 200) throw this.error(res, doing);
    return json<T>(res, doing);
  }

  /** Calls a content endpoint (`files/upload`, `files/download`) with its argument in Dropbox-API-Arg. */
  async contentCall(endpoint: string, arg: unknown, doing: string, body?: Buffer): Promise<HttpResponse> {
    const headers: Record<string, string> = { 'dropbox-api-arg': headerSafeJson(arg) };
    if (body !== undefined) headers['content-type'] = 'application/octet-stream';
    const res = await this.account.send({
      method: 'POST',
      url: `${this.content}/2/${endpoint}`,
      headers,
      body: body ?? undefined,
      maxBodyBytes: body === undefined ? MAX_DOWNLOAD_BYTES : undefined,
    });
    if (res.status !== 200) throw this.error(res, doing);
    return res;
  }

  /** A readable action error for a failed call. */
  error(res: HttpResponse, doing: string): DropboxError {
    const { summary, message } = describeError(res, this.account);
    return new DropboxError(`Dropbox could not ${doing}: ${message}`, res.status, summary);
  }
}

/** A failed Dropbox call: the HTTP status and the error summary (`path/not_found`). */
export class DropboxError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly summary: string | undefined,
  ) {
    super(message);
    this.name = 'DropboxError';
  }
}

/**
 * JSON for an HTTP header: Dropbox wants Dropbox-API-Arg in ASCII, with other characters escaped
 * as \uXXXX (its "HTTP header safe JSON").
 */
export function headerSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A Dropbox path: `/Folder/file.txt`. A missing leading slash is added and trailing ones are
 * dropped; `id:`, `rev:` and `ns:` references are kept as they are.
 */
export function dropboxPath(input: string): string {
  const p = input.trim();
  if (/^(id|rev|ns):/.test(p)) return p;
  const out = ('/' + p.replace(/^\/+/, '')).replace(/\/+$/, '');
  if (!out) throw new Error('The path must name a file or folder, not the root of the Dropbox');
  return out;
}

function json<T>(res: HttpResponse, doing: string): T {
  try {
    return JSON.parse(res.body.toString('utf8')) as T;
  } catch {
    throw new Error(`Dropbox could not ${doing}: the answer is not JSON (HTTP ${res.status})`);
  }
}

const EXPLAIN: Array<[RegExp, string]> = [
  [/(^|\/)not_found(\/|$)/, 'nothing exists at that path'],
  [/(^|\/)conflict\/folder/, 'a folder already exists at that path'],
  [/(^|\/)conflict\/file/, 'a file already exists at that path'],
  [/(^|\/)conflict/, 'something already exists at that path'],
  [/(^|\/)not_file/, 'that path is a folder, not a file'],
  [/(^|\/)not_folder/, 'that path is a file, not a folder'],
  [/(^|\/)malformed_path/, 'the path is malformed'],
  [/(^|\/)disallowed_name/, 'Dropbox does not allow that name'],
  [/(^|\/)insufficient_space/, 'the Dropbox is full'],
  [/(^|\/)no_write_permission/, 'the account may not write there'],
  [/(^|\/)restricted_content/, 'the file is restricted by Dropbox (copyright or policy)'],
  [/(^|\/)unsupported_file/, 'links cannot be made for this kind of file'],
  [/(^|\/)(too_many_write_operations|too_many_requests)/, 'too many requests to Dropbox: try again later'],
  [/^(invalid_access_token|expired_access_token)/, 'the access token is invalid or expired'],
  [/(^|\/)(access_denied|email_not_verified)/, 'access denied'],
];

function describeError(res: HttpResponse, account: OAuthAccount): { summary?: string; message: string } {
  const text = res.body.toString('utf8').trim();
  let body: { error_summary?: unknown; error?: Record<string, unknown>; user_message?: { text?: unknown } } | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as typeof body;
  } catch {
    // plain text (a 400 for a malformed call) or an HTML error page
  }
  const summary = typeof body?.error_summary === 'string' ? body.error_summary.replace(/\/\.*$/, '') : undefined;
  const parts: string[] = [];
  if (summary) {
    const explained = EXPLAIN.find(([re]) => re.test(summary))?.[1];
    parts.push(explained ? `${explained} (${summary})` : summary);
    const userMessage = body?.user_message?.text;
    if (typeof userMessage === 'string' && userMessage) parts.push(userMessage);
    const scope = body?.error?.required_scope;
    if (typeof scope === 'string') parts.push(`the app needs the ${scope} permission`);
  } else if (text && !/^\s*</.test(text)) {
    parts.push(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  } else {
    parts.push(`HTTP ${res.status}`);
  }
  if (res.status === 401) parts.push(account.unauthorizedHint());
  if (res.status === 429) {
    const retry = res.headers['retry-after'] ?? (body?.error as { retry_after?: unknown } | undefined)?.retry_after;
    if (retry !== undefined) parts.push(`retry after ${retry} s`);
  }
  return { summary, message: parts.join('; ') };
}
