// The `microsoft` provider (an OAuth token of a Microsoft identity platform app with the
// Files.ReadWrite permission) and calls of Microsoft Graph v1.0 on the signed-in user's OneDrive
// (`/me/drive/root:/<path>:`). Graph errors are `{"error": {"code": "itemNotFound", "message": ...}}`.
import { type ActionContext, defineProvider, type HttpRequest, type HttpResponse, z } from '@capture/sdk';
import { type OAuthAccount, oauthCredentials, openOAuthAccount } from '@capture/sdk/oauth';

export const MICROSOFT = 'microsoft';
export const API_BASE_URL = 'https://graph.microsoft.com/v1.0';
export const TOKEN_URL = 'https://login.microsoftonline.com/common/oauth2/v2.0/token';
export const SCOPE = 'offline_access Files.ReadWrite';

/** At most this much of a downloaded file goes into a variable. */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;

const url = z.url({ protocol: /^https?$/ }).optional();

export const microsoftSettings = z.object({
  api_base_url: url.describe(`Microsoft Graph, with its version (default ${API_BASE_URL})`),
  token_url: url.describe(`OAuth2 token endpoint used to renew the access token (default ${TOKEN_URL}; use your tenant instead of common for single-tenant apps)`),
  scope: z.string().trim().min(1).optional().describe(`Scopes asked for when renewing the token (default "${SCOPE}")`),
});

export const microsoftProvider = defineProvider({
  type: MICROSOFT,
  title: 'Microsoft',
  description:
    'A Microsoft account (personal or work) for the OneDrive and Excel actions: an OAuth2 access token for Microsoft Graph with the Files.ReadWrite permission, with refresh_token, client_id and client_secret so it can be renewed.',
  credentials: oauthCredentials,
  settings: microsoftSettings,
});

const settingsOf = (p: { settings: Record<string, unknown> }) => {
  const s = microsoftSettings.safeParse(p.settings ?? {});
  return s.success ? s.data : {};
};

/**
 * `Folder/Book 1.xlsx` -> `/me/drive/root:/Folder/Book%201.xlsx:`, the drive item at that path
 * (relative to the OneDrive root; a leading slash is optional).
 */
export function itemPath(path: string): string {
  const segments = path.trim().split('/').filter(Boolean);
  if (!segments.length) throw new Error('The path must name a file in OneDrive, e.g. Documents/report.xlsx');
  return `/me/drive/root:/${segments.map(encodeURIComponent).join('/')}:`;
}

export interface GraphCall {
  method: string;
  /** After the base URL, e.g. `/me/drive/root:/a.txt:/content`. */
  path: string;
  json?: unknown;
  body?: Buffer;
  contentType?: string;
  /** What the action was doing, for the error message: `upload a.txt`. */
  doing: string;
  maxRedirects?: number;
  maxBodyBytes?: number;
}

/** A Microsoft account to call Graph with. */
export class Graph {
  private constructor(
    readonly account: OAuthAccount,
    private readonly base: string,
  ) {}

  static async open(ctx: ActionContext<unknown>, providerId: string): Promise<Graph> {
    const account = await openOAuthAccount(ctx, providerId, {
      type: MICROSOFT,
      title: 'Microsoft',
      tokenUrl: (p) => settingsOf(p).token_url ?? TOKEN_URL,
      scope: (p) => settingsOf(p).scope ?? SCOPE,
    });
    return new Graph(account, (settingsOf(account.provider).api_base_url ?? API_BASE_URL).replace(/\/+$/, ''));
  }

  /** Sends the call; a 4xx/5xx answer becomes a GraphError (3xx are returned). */
  async send(call: GraphCall): Promise<HttpResponse> {
    const req: HttpRequest = { method: call.method, url: `${this.base}${call.path}`, headers: { accept: 'application/json' } };
    if (call.json !== undefined) {
      req.headers!['content-type'] = 'application/json';
      req.body = JSON.stringify(call.json);
    } else if (call.body !== undefined) {
      req.headers!['content-type'] = call.contentType || 'application/octet-stream';
      req.body = call.body;
    }
    if (call.maxRedirects !== undefined) req.maxRedirects = call.maxRedirects;
    if (call.maxBodyBytes !== undefined) req.maxBodyBytes = call.maxBodyBytes;
    const res = await this.account.send(req);
    if (res.status >= 400) throw graphError(res, call.doing, this.account);
    return res;
  }

  /** Sends the call and parses the JSON answer. */
  async json<T>(call: GraphCall): Promise<T> {
    const res = await this.send(call);
    try {
      return JSON.parse(res.body.toString('utf8')) as T;
    } catch {
      throw new Error(`Microsoft Graph could not ${call.doing}: the answer is not JSON (HTTP ${res.status})`);
    }
  }
}

/** A failed Graph call: the HTTP status and Graph's error code (`itemNotFound`). */
export class GraphError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'GraphError';
  }
}

function graphError(res: HttpResponse, doing: string, account: OAuthAccount): GraphError {
  const text = res.body.toString('utf8').trim();
  let error: { code?: unknown; message?: unknown } | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (parsed && typeof parsed.error === 'object' && parsed.error) error = parsed.error as typeof error;
  } catch {
    // not JSON
  }
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const message = typeof error?.message === 'string' && error.message ? error.message : undefined;
  const parts = [message || code ? `${message ?? code}${code && message ? ` (${code})` : ''}` : `HTTP ${res.status}${text && !text.startsWith('<') ? `: ${text.slice(0, 300)}` : ''}`];
  if (res.status === 401) parts.push(account.unauthorizedHint());
  if (res.status === 404 && /not ?found/i.test(`${code} ${message}`)) parts.push('check the path (relative to the OneDrive root), and the table or worksheet name');
  if (res.status === 403 && /permissions? to open this file in the browser|wac access token/i.test(message ?? '')) {
    parts.push('this error comes from Microsoft for some accounts (since February 2024) and has no known fix here: contact Microsoft Support');
  }
  if (res.status === 429 || res.status === 503) {
    parts.push(`Microsoft is throttling requests${res.headers['retry-after'] ? `: retry after ${res.headers['retry-after']} s` : ''}`);
  }
  return new GraphError(`Microsoft Graph could not ${doing}: ${parts.join('; ')}`, res.status, code);
}
