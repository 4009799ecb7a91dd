// OAuth2 bearer calls for a connected account: a provider holding an access token and, optionally,
// what it takes to renew it (refresh_token, client_id, client_secret). Used by the Dropbox,
// Microsoft and Google Sheets plugins; any plugin whose provider type takes `oauthCredentials` can
// use it.
//
// A token that is expired (expires_at, with a minute of margin) or rejected with 401 is renewed
// once per action with the OAuth2 refresh_token grant at the provider's token endpoint. The new
// access_token, its expires_at (epoch seconds) and a rotated refresh_token, when the endpoint sends
// one, are saved to the provider with `services.providers.saveCredentials`: the stored provider is
// the truth, so other processes and later runs use the renewed token without renewing again.
//
// This process also remembers each renewal for a minute, keyed by the provider and the tokens it
// was renewed from. Actions that renew the same account at the same time then share one call of
// the token endpoint (a rotated refresh_token is good for one renewal only), and an action that
// read the provider before the new token was saved, or after saving failed, uses it too.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { HttpRequest, HttpResponse, Provider } from './services.js';
import type { ActionContext } from './types.js';

/** The secret fields of an OAuth provider type: use as `defineProvider({ credentials: oauthCredentials })`. */
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

/** What `openOAuthAccount` needs to know about a provider type. */
export interface OAuthProviderKind {
  /** Provider type, e.g. `dropbox`. */
  type: string;
  /** Shown in messages, e.g. `Dropbox`. */
  title: string;
  /** The OAuth2 token endpoint, e.g. from the provider's settings with a default. */
  tokenUrl: string | ((provider: Provider) => string);
  /** `scope` sent when renewing (Microsoft wants it); none when undefined. */
  scope?: string | ((provider: Provider) => string | undefined);
}

/** What the OAuth helper uses of an action's context. */
export type OAuthContext = Pick<ActionContext<unknown>, 'services' | 'signal' | 'log'>;

/** Renewals are renewed early by this much, so a token does not expire on its way. */
const RENEW_MARGIN_MS = 60_000;
/** How long this process reuses a renewal for actions that still hold the tokens it replaced. */
const REUSE_MS = 60_000;

interface Renewal {
  token: string;
  expiresAt: number | undefined;
  /** Why saving to the provider failed (undefined when saved). */
  saveError?: string;
}

/** Recent and running renewals of this process: key -> the renewal and when it started. */
const renewals = new Map<string, { renewal: Promise<Renewal>; startedAt: number }>();

/** epoch seconds / epoch ms / ISO date -> epoch ms (undefined when unreadable). */
export function expiryMs(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (Number.isFinite(n)) return n < 1e12 ? n * 1000 : n;
  const t = Date.parse(String(value));
  return Number.isNaN(t) ? undefined : t;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** A connected OAuth account for one action: sends bearer requests and renews the token when needed. */
export class OAuthAccount {
  private token: string | undefined;
  private expiresAt: number | undefined;
  private renewedNow = false;
  private readonly key: string;
  private readonly tokenUrl: string;
  private readonly scope: string | undefined;

  constructor(
    private readonly ctx: OAuthContext,
    readonly kind: OAuthProviderKind,
    readonly provider: Provider,
    private readonly credentials: OAuthCredentials,
  ) {
    this.token = credentials.access_token;
    this.expiresAt = expiryMs(credentials.expires_at);
    this.tokenUrl = typeof kind.tokenUrl === 'function' ? kind.tokenUrl(provider) : kind.tokenUrl;
    this.scope = typeof kind.scope === 'function' ? kind.scope(provider) : kind.scope;
    const digest = createHash('sha256')
      .update(`${credentials.access_token ?? ''}\0${credentials.refresh_token ?? ''}`)
      .digest('hex')
      .slice(0, 32);
    this.key = `${kind.type}:${provider.id}:${digest}`;
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
   * token is renewed first; a 401 answer renews it and sends again, once per action. Other answers,
   * a final 401 included, are returned as they are.
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

  /** A hint to add to the error of a 401 answer. */
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
    const now = this.ctx.services.clock.now();
    const recent = renewals.get(this.key);
    let shared = false;
    let entry: { renewal: Promise<Renewal>; startedAt: number };
    if (recent && now - recent.startedAt < REUSE_MS) {
      entry = recent;
      shared = true;
    } else {
      entry = { renewal: this.renewAndSave(), startedAt: now };
      renewals.set(this.key, entry);
      // A failed renewal is not reused: the next action tries again.
      entry.renewal.catch(() => {
        if (renewals.get(this.key) === entry) renewals.delete(this.key);
      });
    }
    const renewal = await entry.renewal;
    this.token = renewal.token;
    this.expiresAt = renewal.expiresAt;
    if (shared) this.ctx.log(`Used the ${this.kind.title} access token renewed moments ago in this process`);
    else if (renewal.saveError) {
      this.ctx.log(`Renewed the ${this.kind.title} access token, but could not save it to ${this.label} (${renewal.saveError}); it is used for this action only`);
    } else this.ctx.log(`Renewed the ${this.kind.title} access token and saved it to ${this.label}`);
  }

  /** The refresh_token grant, then the new tokens saved to the provider. */
  private async renewAndSave(): Promise<Renewal> {
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
        // The form holds the refresh token and client secret: never send it on to another address.
        maxRedirects: 0,
      });
    } catch (e) {
      throw new Error(`Could not renew the ${this.kind.title} access token of ${this.label}: ${message(e)}`);
    }
    const text = res.body.toString('utf8');
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      // not JSON: reported below
    }
    if (res.status >= 300 || typeof json.access_token !== 'string' || !json.access_token) {
      const reason =
        typeof json.error === 'string' ? `${json.error}${typeof json.error_description === 'string' ? `: ${json.error_description}` : ''}` : `HTTP ${res.status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}`;
      throw new Error(`Could not renew the ${this.kind.title} access token of ${this.label} (${reason}); reconnect the account`);
    }
    const expiresIn = Number(json.expires_in);
    const expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? this.ctx.services.clock.now() + expiresIn * 1000 : undefined;
    const patch: Record<string, unknown> = {
      access_token: json.access_token,
      // Without expires_in the old expiry no longer applies: the token is renewed when rejected.
      expires_at: expiresAt === undefined ? null : Math.floor(expiresAt / 1000),
    };
    if (typeof json.refresh_token === 'string' && json.refresh_token) patch.refresh_token = json.refresh_token;
    let saveError: string | undefined;
    try {
      await this.ctx.services.providers.saveCredentials(this.provider.id, patch);
    } catch (e) {
      saveError = message(e);
    }
    return { token: json.access_token, expiresAt, saveError };
  }
}

/**
 * The provider `id` of `kind.type` as an OAuth account to call its API with. Rejects with a clear
 * message when it is missing, of another type, or holds no usable credentials.
 */
export async function openOAuthAccount(ctx: OAuthContext, id: string | number, kind: OAuthProviderKind): Promise<OAuthAccount> {
  const provider = await ctx.services.providers.get(id, kind.type);
  const creds = oauthCredentials.safeParse(provider.credentials ?? {});
  if (!creds.success) {
    const issue = creds.error.issues[0];
    throw new Error(`${kind.title} provider ${id} has no usable credentials: ${issue ? `${issue.path.join('.') || 'credentials'} ${issue.message}` : 'invalid'}`);
  }
  return new OAuthAccount(ctx, kind, provider, creds.data);
}

/** Forgets this process's recent renewals (tests). */
export function forgetOAuthRenewals(): void {
  renewals.clear();
}
