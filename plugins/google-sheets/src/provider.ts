// The `google` provider (an OAuth token of a Google account with the spreadsheets scope) and calls
// of the Google Sheets API v4 (`/v4/spreadsheets/<id>/values/<range>`). Errors are
// `{"error": {"code": 404, "message": "...", "status": "NOT_FOUND"}}`. Google allows about 60 write
// requests per minute per user; past that it answers 429 RESOURCE_EXHAUSTED naming the
// 'Write requests' quota metric.
import { type ActionContext, defineProvider, type HttpResponse, z } from '@capture/sdk';
import { type OAuthAccount, oauthCredentials, openOAuthAccount } from '@capture/sdk/oauth';

export const GOOGLE = 'google';
export const API_BASE_URL = 'https://sheets.googleapis.com';
export const TOKEN_URL = 'https://oauth2.googleapis.com/token';

const url = z.url({ protocol: /^https?$/ }).optional();

export const googleSettings = z.object({
  api_base_url: url.describe(`Google Sheets API, without /v4 (default ${API_BASE_URL})`),
  token_url: url.describe(`OAuth2 token endpoint used to renew the access token (default ${TOKEN_URL})`),
});

export const googleProvider = defineProvider({
  type: GOOGLE,
  title: 'Google',
  description: 'A Google account for the Google Sheets actions: an OAuth2 access token with the https://www.googleapis.com/auth/spreadsheets scope, with refresh_token, client_id and client_secret so it can be renewed.',
  credentials: oauthCredentials,
  settings: googleSettings,
});

const settingsOf = (p: { settings: Record<string, unknown> }) => {
  const s = googleSettings.safeParse(p.settings ?? {});
  return s.success ? s.data : {};
};

/** The spreadsheet ID in a docs.google.com URL, or the text when it already is an ID. */
export function extractSpreadsheetId(input: string): string | undefined {
  const t = input.trim();
  const fromUrl = /\/spreadsheets\/(?:u\/\d+\/)?d\/([a-zA-Z0-9_-]+)/.exec(t);
  if (fromUrl) return fromUrl[1];
  return /^[a-zA-Z0-9_-]+$/.test(t) ? t : undefined;
}

/** The spreadsheet parameter: a URL or an ID, given as the ID. */
export const spreadsheetParam = z
  .string()
  .trim()
  .min(1, 'is required')
  .transform((v, ctx) => {
    const id = extractSpreadsheetId(v);
    if (id) return id;
    ctx.addIssue({ code: 'custom', message: 'must be a Google Sheets URL (https://docs.google.com/spreadsheets/d/...) or a spreadsheet ID' });
    return z.NEVER;
  })
  .describe('The spreadsheet URL or ID');

export interface ValuesCall {
  method: 'GET' | 'PUT' | 'POST';
  spreadsheetId: string;
  range: string;
  /** `:append` for Add Row. */
  verb?: string;
  query: Record<string, string>;
  json?: unknown;
  /** For the error message: `add a row to Sheet1!A1`. */
  doing: string;
  /** A write counts against the 'Write requests' quota, a read against 'Read requests'. */
  write: boolean;
}

/** A Google account to call the Sheets API with. */
export class Sheets {
  private constructor(
    private readonly account: OAuthAccount,
    private readonly base: string,
  ) {}

  static async open(ctx: ActionContext<unknown>, providerId: string): Promise<Sheets> {
    const account = await openOAuthAccount(ctx, providerId, { type: GOOGLE, title: 'Google', tokenUrl: (p) => settingsOf(p).token_url ?? TOKEN_URL });
    return new Sheets(account, (settingsOf(account.provider).api_base_url ?? API_BASE_URL).replace(/\/+$/, ''));
  }

  async values<T>(call: ValuesCall): Promise<T> {
    const query = new URLSearchParams(call.query).toString();
    const url = `${this.base}/v4/spreadsheets/${encodeURIComponent(call.spreadsheetId)}/values/${encodeURIComponent(call.range)}${call.verb ?? ''}${query ? `?${query}` : ''}`;
    const res = await this.account.send({
      method: call.method,
      url,
      headers: call.json === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: call.json === undefined ? undefined : JSON.stringify(call.json),
    });
    if (res.status >= 400) throw sheetsError(res, call, this.account);
    try {
      return JSON.parse(res.body.toString('utf8')) as T;
    } catch {
      throw new Error(`Google Sheets could not ${call.doing}: the answer is not JSON (HTTP ${res.status})`);
    }
  }
}

/** A failed Sheets call: HTTP status and Google's status (`NOT_FOUND`, `RESOURCE_EXHAUSTED`). */
export class SheetsError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly googleStatus: string | undefined,
    /** True for a quota error (429 / RESOURCE_EXHAUSTED). */
    readonly quota: boolean,
  ) {
    super(message);
    this.name = 'SheetsError';
  }
}

function sheetsError(res: HttpResponse, call: ValuesCall, account: OAuthAccount): SheetsError {
  const text = res.body.toString('utf8').trim();
  let error: { message?: unknown; status?: unknown } | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (parsed && typeof parsed.error === 'object' && parsed.error) error = parsed.error as typeof error;
  } catch {
    // not JSON (an HTML error page from a proxy)
  }
  const status = typeof error?.status === 'string' ? error.status : undefined;
  const message = typeof error?.message === 'string' && error.message ? error.message : undefined;
  const quota = res.status === 429 || status === 'RESOURCE_EXHAUSTED';
  const prefix = `Google Sheets could not ${call.doing}`;
  if (quota) {
    const metric = call.write ? 'Write requests' : 'Read requests';
    const said =
      message && /quota metric/i.test(message)
        ? message.replace(/\.$/, '')
        : `Quota exceeded for quota metric '${metric}' and limit '${metric} per minute per user' of service 'sheets.googleapis.com'${message ? ` (${message})` : ''}`;
    const advice = call.write ? 'Google allows about 60 write requests per minute per user; for mass imports use a database' : 'try again in a minute';
    return new SheetsError(`${prefix}: ${said}; ${advice}`, res.status, status, true);
  }
  const parts = [message ? `${message}${status ? ` (${status})` : ''}` : `HTTP ${res.status}${text && !text.startsWith('<') ? `: ${text.slice(0, 300)}` : ''}`];
  if (res.status === 401) parts.push(account.unauthorizedHint());
  else if (res.status === 404) parts.push('check the spreadsheet URL or ID');
  else if (res.status === 403) parts.push('the connected Google account cannot open this spreadsheet: share it with that account (editor rights to write)');
  else if (res.status === 400 && /parse range/i.test(message ?? '')) parts.push("check the range, e.g. 'Sheet1'!A1:C3");
  return new SheetsError(`${prefix}: ${parts.join('; ')}`, res.status, status, false);
}
