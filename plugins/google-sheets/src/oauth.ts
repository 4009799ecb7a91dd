// OAuth2 bearer calls for a connected account (a provider holding an access token and, optionally,
// what it takes to renew it). The same file lives in each OAuth plugin (dropbox, microsoft,
// google-sheets) because plugins import only the SDK; it would belong there once a second kind of
// plugin needs it.
//
// A token that is expired (expires_at) or rejected with 401 is renewed once per action with the
// OAuth2 refresh_token grant at the provider's token endpoint. Plugins cannot write providers, so
// the new token is not stored: it is kept in this process's memory (keyed by the provider and its
// stored tokens, so editing the provider drops it) until it expires.
import { createHash } from 'node:crypto';
import { z, type ActionContext, type HttpRequest, type HttpResponse, type Provider } from '../../../core/sdk/index.js';

/** The secret fields of an OAuth provider. */
export const oauthCredentials = z
  .object({
    access_token: z.string().min(1).optional().describe('The OAuth2 access token (Bearer)'),
    refresh_token: z.string().min(1).optional().describe('Renews the access token when it expires (with client_id and client_secret)'),
    client_id: z.string().min(1).optional().describe('The OAuth app that issued the tokens'),
    client_secret: z.string().min(1).optional().describe('The OAuth app secret (not needed for PKCE apps)'),
    expires_at: z
      .union([z.number(), z.string().min(1)])
      .optional()
      .describe('When the access token expires: epoch seconds, epoch milliseconds or an ISO 8601 date'),
  })
  .refine((c) => !!c.access_token || (!!c.refresh_token && !!c.client_id), {
    message: 'give access_token, or refresh_token with client_id',
    path: ['access_token'],
  });

export type OAuthCredentials = z.output<typeof oauthCredentials>;

/** A provider id as the API takes it: text or a number. */
export const providerId = z
  .union([z.string().trim().min(1, 'is required'), z.number().int()])
  .transform((v) => String(v))
  .describe('The connected account (Providers API)');

export interface OAuthKind {
  /** Provider type, e.g. `dropbox`. */
  type: string;
  /** Shown in messages, e.g. `Dropbox`. */
  title: string;
}

/** Renewed tokens of this process: key -> token and when it expires (epoch ms). */
const renewed = new Map<string, { token: string; expiresAt?: number }>();
const RENEW_MARGIN_MS = 60_000;

/** epoch seconds / epoch ms / ISO date -> epoch ms (undefined when unreadable). */
export function expiryMs(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (Number.isFinite(n)) return n < 1e12 ? n * 1000 : n;
  const t = Date.parse(String(value));
  return Number.isNaN(t) ? undefined : t;
}

export class OAuthAccount {
  private token: string | undefined;
  private expiresAt: number | undefined;
  private renewedNow = false;
  private readonly key: string;

  constructor(
    private readonly ctx: ActionContext<unknown>,
    readonly kind: OAuthKind,
    readonly provider: Provider,
    private readonly credentials: OAuthCredentials,
    private readonly tokenUrl: string,
    private readonly scope?: string,
  ) {
    const digest = createHash('sha256').update(`${credentials.access_token ?? ''}\0${credentials.refresh_token ?? ''}`).digest('hex').slice(0, 32);
    this.key = `${kind.type}:${provider.id}:${digest}`;
    const cached = renewed.get(this.key);
    if (cached && (cached.expiresAt === undefined || cached.expiresAt > ctx.services.clock.now() + RENEW_MARGIN_MS)) {
      this.token = cached.token;
      this.expiresAt = cached.expiresAt;
    } else {
      this.token = credentials.access_token;
      this.expiresAt = expiryMs(credentials.expires_at);
    }
  }

  /** True when the account holds what a refresh_token grant needs. */
  get canRenew(): boolean {
    return !!this.credentials.refresh_token && !!this.credentials.client_id;
  }

  /** The provider as messages name it: `Dropbox provider 7`. */
  get label(): string {
    return `${this.kind.title} provider ${this.provider.id}`;
  }

  /**
   * Sends `req` with `Authorization: Bearer <token>` (and the chain's abort signal). An expired
   * token is renewed first; a 401 answer renews it and sends again, once per action.
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    if (this.canRenew && !this.renewedNow && (!this.token || (this.expiresAt !== undefined && this.expiresAt <= this.ctx.services.clock.now() + RENEW_MARGIN_MS))) {
      await this.renew();
    }
    if (!this.token) throw new Error(`${this.label} has no access token`);
    let res = await this.request(req);
    if (res.status === 401 && this.canRenew && !this.renewedNow) {
      await this.renew();
      res = await this.request(req);
    }
    return res;
  }

  /** A hint to add to a 401 error. */
  unauthorizedHint(): string {
    return this.canRenew
      ? `the access token was rejected even after renewing it: reconnect the ${this.kind.title} account`
      : `the access token was rejected and cannot be renewed: update ${this.label} with a new access_token, or add refresh_token, client_id and client_secret`;
  }

  private request(req: HttpRequest): Promise<HttpResponse> {
    return this.ctx.services.http.request({
      ...req,
      headers: { ...req.headers, authorization: `Bearer ${this.token}` },
      signal: req.signal ?? this.ctx.signal,
    });
  }

  private async renew(): Promise<void> {
    this.renewedNow = true;
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.credentials.refresh_token ?? '', client_id: this.credentials.client_id ?? '' });
    if (this.credentials.client_secret) form.set('client_secret', this.credentials.client_secret);
    if (this.scope) form.set('scope', this.scope);
    let res: HttpResponse;
    try {
      res = await this.ctx.services.http.request({
        method: 'POST',
        url: this.tokenUrl,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: this.ctx.signal,
      });
    } catch (e) {
      throw new Error(`Could not renew the ${this.kind.title} access token of ${this.label}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const text = res.body.toString('utf8');
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      // not JSON: reported below
    }
    if (res.status >= 400 || typeof json.access_token !== 'string' || !json.access_token) {
      const reason =
        typeof json.error === 'string'
          ? `${json.error}${typeof json.error_description === 'string' ? `: ${json.error_description}` : ''}`
          : `HTTP ${res.status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}`;
      throw new Error(`Could not renew the ${this.kind.title} access token of ${this.label} (${reason}); reconnect the account`);
    }
    this.token = json.access_token;
    const expiresIn = Number(json.expires_in);
    this.expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? this.ctx.services.clock.now() + expiresIn * 1000 : undefined;
    renewed.set(this.key, { token: this.token, expiresAt: this.expiresAt });
    this.ctx.log(`Renewed the ${this.kind.title} access token (kept in memory until it expires; the stored provider is unchanged)`);
  }
}

/**
 * The provider `id` of `kind.type` as an account to call the API with. Rejects with a clear
 * message when it is missing, of another type, or holds no usable credentials.
 */
export async function openAccount(
  ctx: ActionContext<unknown>,
  id: string,
  kind: OAuthKind,
  tokenUrl: (provider: Provider) => string,
  scope?: (provider: Provider) => string | undefined,
): Promise<OAuthAccount> {
  const provider = await ctx.services.providers.get(id, kind.type);
  const creds = oauthCredentials.safeParse(provider.credentials ?? {});
  if (!creds.success) {
    const issue = creds.error.issues[0];
    throw new Error(`${kind.title} provider ${id} has no usable credentials: ${issue ? `${issue.path.join('.') || 'credentials'} ${issue.message}` : 'invalid'}`);
  }
  return new OAuthAccount(ctx, kind, provider, creds.data, tokenUrl(provider), scope?.(provider));
}

/** Forgets renewed tokens (tests). */
export function forgetRenewedTokens(): void {
  renewed.clear();
}
