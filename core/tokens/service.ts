// Token rules of the seed: defaults, limits, cloning, aliases, passwords, expiry.
import { randomUUID } from 'node:crypto';
import { authorizeToken, groupLimit, requirePremium, type Caller } from '../auth/access.js';
import { hashPassword } from '../auth/secrets.js';
import type { Config } from '../config.js';
import { Conflict, NotFound, TooManyRequests, ValidationError, fromZod } from '../errors.js';
import { AliasTaken, type Store, type TokenPatch, type TokenRecord, type TokenWithStats } from '../store/types.js';
import { formatTimestamp, type Clock } from '../util/time.js';
import { TokenPasswords } from './passwords.js';
import { AliasSchema, READ_ONLY_TOKEN_FIELDS, DEFAULT_MAX_REQUEST_LIMIT, tokenSchemas, type TokenCreateBody, type TokenUpdateBody } from './tokens.schema.js';

/** Non-premium tokens expire after at most a week (seed: Limits). */
export const FREE_MAX_EXPIRY_SECONDS = 604800;

export interface CreateMeta {
  ip: string;
  userAgent: string;
}

/** Called after a token was cloned, so other modules (actions, workflows) copy what they own. */
export type CloneHook = (from: TokenRecord, to: TokenRecord) => Promise<void>;
/** Called before a token is deleted, so other modules drop what they own. */
export type DeleteHook = (token: TokenRecord) => Promise<void>;
/** Called after a token's settings were committed (realtime `token.updated`). Must not throw. */
export type UpdateHook = (token: TokenRecord) => void;

function isPremium(caller: Caller): boolean {
  return caller.kind === 'admin' || (caller.kind === 'user' && caller.user.premium);
}

function validate<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error);
  return r.data;
}

export function tokenView(t: TokenRecord | TokenWithStats): Record<string, unknown> {
  const view: Record<string, unknown> = {
    uuid: t.uuid,
    redirect: t.redirect,
    alias: t.alias,
    actions: t.actions,
    cors: t.cors,
    expiry: t.expiry,
    timeout: t.timeout,
    listen: t.listen,
    premium: t.premium,
    premium_expires_at: formatTimestamp(t.premium_expires_at),
    user_id: t.user_id,
    team_id: t.team_id ?? null,
    ip: t.ip,
    user_agent: t.user_agent,
    default_content: t.default_content,
    default_status: t.default_status,
    default_content_type: t.default_content_type,
    request_limit: t.request_limit,
    description: t.description,
    group_id: t.group_id,
    password: t.password_hash !== null,
    created_at: formatTimestamp(t.created_at),
    updated_at: formatTimestamp(t.updated_at),
    expires_at: formatTimestamp(t.expires_at),
    redaction: t.redaction ?? null,
  };
  if ('requests' in t) {
    view.requests = t.requests;
    view.latest_request_id = t.latest_request_id;
    view.latest_request_at = formatTimestamp(t.latest_request_at);
  }
  return view;
}

export class TokenService {
  readonly cloneHooks: CloneHook[] = [];
  readonly deleteHooks: DeleteHook[] = [];
  readonly updateHooks: UpdateHook[] = [];
  /** Token password checks, wrong guesses throttled (shared by every route and stream of this process). */
  readonly passwords: TokenPasswords;

  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    this.schemas = tokenSchemas(config.MAX_REQUEST_LIMIT);
    this.passwords = new TokenPasswords(store, clock, { perToken: config.TOKEN_PASSWORD_FAILURES_PER_MIN, perAddress: config.TOKEN_PASSWORD_FAILURES_PER_MIN_PER_ADDRESS });
  }

  /** Create and update bodies, `request_limit` up to MAX_REQUEST_LIMIT. */
  private readonly schemas: ReturnType<typeof tokenSchemas>;

  /** Seed limit: 10 creations a minute anonymous or free, 60 premium; counted in the shared store. */
  private async checkCreateRate(caller: Caller, ip: string): Promise<void> {
    if (caller.kind === 'admin') return;
    const premium = isPremium(caller);
    const limit = premium ? this.config.TOKEN_CREATE_PER_MIN_PREMIUM : this.config.TOKEN_CREATE_PER_MIN_FREE;
    const who = caller.kind === 'user' ? `user:${caller.user.id}` : `ip:${ip}`;
    const now = this.clock.now();
    const window = now - (now % 60_000);
    const count = await this.store.counters.hit(`token-create:${who}`, window, 120_000);
    if (count > limit) {
      throw new TooManyRequests(`Too many tokens created: at most ${limit} per minute`, (window + 60_000 - now) / 1000);
    }
  }

  private expiryFields(expiry: TokenCreateBody['expiry'], premium: boolean, now: number): Pick<TokenRecord, 'expiry' | 'expires_at'> {
    let value = expiry;
    if (!premium) {
      if (value === undefined || value === null || value === false) value = FREE_MAX_EXPIRY_SECONDS;
      if (typeof value === 'number' && value > FREE_MAX_EXPIRY_SECONDS) {
        throw new ValidationError(`expiry: at most ${FREE_MAX_EXPIRY_SECONDS} seconds without premium`, {
          expiry: [`must be at most ${FREE_MAX_EXPIRY_SECONDS}`],
        });
      }
    }
    if (value === undefined || value === false) value = null;
    return { expiry: value, expires_at: typeof value === 'number' ? now + value * 1000 : null };
  }

  /** A token may join only a group of its owner; a user limited to groups keeps their tokens in those. */
  private async checkGroup(caller: Caller, groupId: number | null | undefined): Promise<void> {
    const limit = groupLimit(caller);
    if (limit) {
      if (groupId === undefined || groupId === null || !limit.includes(groupId)) {
        throw new ValidationError('group_id: must be one of the groups you are limited to', { group_id: [`must be one of ${limit.join(', ')}`] });
      }
      return;
    }
    if (groupId === undefined || groupId === null) return;
    const group = await this.store.groups.get(groupId);
    const ok = group && (caller.kind === 'admin' || (caller.kind === 'user' && caller.user.id === group.user_id));
    if (!ok) throw new ValidationError('group_id: no such group', { group_id: ['is not one of your groups'] });
  }

  async create(caller: Caller, raw: unknown, meta: CreateMeta): Promise<TokenRecord> {
    await this.checkCreateRate(caller, meta.ip);
    const body = validate(this.schemas.create, raw ?? {});
    const premium = isPremium(caller);
    const now = this.clock.now();
    let template: TokenRecord | null = null;
    if (body.clone_from !== undefined) {
      template = await this.store.tokens.resolve(body.clone_from);
      if (!template) throw new ValidationError('clone_from: no such token', { clone_from: ['no token has this ID or alias'] });
      // Cloning copies the template's settings and its actions' stored secrets, which its API never
      // shows: the owner's right, or anyone's for an anonymous token without a password (none is offered).
      await authorizeToken(caller, template, 'write', undefined, async () => false);
    }
    if (body.alias) requirePremium(caller, 'An alias');
    await this.checkGroup(caller, body.group_id);
    const token: TokenRecord = {
      uuid: randomUUID(),
      user_id: caller.kind === 'user' ? caller.user.id : null,
      team_id: caller.kind === 'user' ? caller.user.team_id : null,
      alias: body.alias ?? null,
      redirect: body.redirect ?? template?.redirect ?? false,
      actions: body.actions ?? template?.actions ?? false,
      cors: body.cors ?? template?.cors ?? false,
      timeout: body.timeout ?? template?.timeout ?? 0,
      listen: body.listen ?? template?.listen ?? 0,
      premium,
      premium_expires_at: null,
      ip: meta.ip,
      user_agent: meta.userAgent,
      default_content: body.default_content ?? template?.default_content ?? '',
      default_status: body.default_status ?? template?.default_status ?? 200,
      default_content_type: body.default_content_type ?? template?.default_content_type ?? 'text/html',
      // 10,000 (the seed's) unless MAX_REQUEST_LIMIT is lower; a raised maximum is opt-in per token.
      request_limit: body.request_limit ?? template?.request_limit ?? Math.min(DEFAULT_MAX_REQUEST_LIMIT, this.config.MAX_REQUEST_LIMIT),
      description: body.description ?? template?.description ?? null,
      group_id: body.group_id ?? null,
      password_hash: template?.password_hash ?? null,
      redaction: body.redaction !== undefined ? body.redaction : (template?.redaction ?? null),
      created_at: now,
      updated_at: now,
      ...this.expiryFields(body.expiry !== undefined ? body.expiry : template ? (template.expiry as TokenCreateBody['expiry']) : undefined, premium, now),
    };
    try {
      await this.store.tokens.create(token);
    } catch (e) {
      if (e instanceof AliasTaken) throw new Conflict(e.message, { alias: ['has already been taken'] });
      throw e;
    }
    if (template) for (const hook of this.cloneHooks) await hook(template, token);
    return token;
  }

  async update(caller: Caller, token: TokenRecord, raw: unknown): Promise<TokenRecord> {
    const input = { ...((raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>) };
    for (const f of READ_ONLY_TOKEN_FIELDS) delete input[f];
    // A client sending back the object it read sends the current alias: that is not a change.
    if (input.alias === token.alias) delete input.alias;
    if (input.expiry === token.expiry) delete input.expiry;
    const body: TokenUpdateBody = validate(this.schemas.update, input);
    if (body.alias !== undefined && body.alias !== null) requirePremium(caller, 'An alias');
    if (body.group_id !== undefined && body.group_id !== token.group_id) await this.checkGroup(caller, body.group_id);
    const patch: TokenPatch = { updated_at: this.clock.now() };
    for (const k of ['default_status', 'default_content', 'default_content_type', 'timeout', 'listen', 'request_limit', 'cors', 'actions', 'group_id', 'description', 'redirect', 'alias', 'redaction'] as const) {
      if (body[k] !== undefined) (patch as Record<string, unknown>)[k] = body[k];
    }
    if (body.expiry !== undefined) Object.assign(patch, this.expiryFields(body.expiry, token.premium, this.clock.now()));
    return this.apply(token, patch);
  }

  private async apply(token: TokenRecord, patch: TokenPatch): Promise<TokenRecord> {
    try {
      const updated = await this.store.tokens.update(token.uuid, patch);
      if (!updated) throw new NotFound('Token not found');
      for (const hook of this.updateHooks) hook(updated);
      return updated;
    } catch (e) {
      if (e instanceof AliasTaken) throw new Conflict(e.message, { alias: ['has already been taken'] });
      throw e;
    }
  }

  /** `address`: the caller's, against which a wrong `oldPassword` counts like any wrong token password. */
  async setPassword(caller: Caller, token: TokenRecord, password: string, oldPassword: string | null | undefined, address: string): Promise<TokenRecord> {
    requirePremium(caller, 'A token password');
    if (token.password_hash && !(await this.passwords.check(token, oldPassword ?? '', address))) {
      throw new ValidationError('old_password: does not match the current password', { old_password: ['does not match the current password'] });
    }
    return this.apply(token, { password_hash: password === '' ? null : await hashPassword(password), updated_at: this.clock.now() });
  }

  async setAlias(caller: Caller, token: TokenRecord, alias: unknown): Promise<TokenRecord> {
    requirePremium(caller, 'An alias');
    const parsed = AliasSchema.nullable().safeParse(alias);
    if (!parsed.success) throw fromZod({ issues: parsed.error.issues.map((i) => ({ ...i, path: ['alias', ...i.path] })) });
    return this.apply(token, { alias: parsed.data, updated_at: this.clock.now() });
  }

  async toggleCors(token: TokenRecord): Promise<boolean> {
    const t = await this.apply(token, { cors: !token.cors, updated_at: this.clock.now() });
    return t.cors;
  }

  /** Hands the token to another member of its team (the tokens of a user who is removed). */
  async reassign(token: TokenRecord, userId: number): Promise<TokenRecord> {
    return this.apply(token, { user_id: userId, updated_at: this.clock.now() });
  }

  /**
   * Takes the token out of its account: no owner, team or group, like a token made without a key.
   * Whoever knows its ID (and password, when one is set) may then open it; its requests and actions stay.
   */
  async disassociate(token: TokenRecord): Promise<TokenRecord> {
    if (token.user_id === null) throw new Conflict('This token belongs to no account');
    return this.apply(token, { user_id: null, team_id: null, group_id: null, updated_at: this.clock.now() });
  }

  async delete(token: TokenRecord): Promise<void> {
    for (const hook of this.deleteHooks) await hook(token);
    await this.store.tokens.delete(token.uuid);
  }
}
