// Users, teams and API keys. A team is named by its first member's ID; every user belongs to one,
// with a user type (USER_TYPES in core/auth/access.ts) that says what they may do. Administrators
// invite people by e-mail (a one-time link to set up their API key), list, change and remove the
// team's users; the administrator key (ADMIN_API_KEY) does all of it for every team.
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { requireAdmin, requireCaller, requireUserManager, USER_TYPES, type Caller } from '../../auth/access.js';
import { hashApiKey, newApiKey } from '../../auth/secrets.js';
import { Conflict, Forbidden, HttpError, NotFound, ValidationError, fromZod } from '../../errors.js';
import { BUS, MAILER } from '../../service-keys.js';
import type { ApiKeyRecord, UserRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { UserCreateBody, UserDeleteQuery, UserInviteBody, UserListQuery, UserUpdateBody } from './users.schema.js';

/** How long an invite link stays valid. */
export const INVITE_TTL_MS = 7 * 24 * 3600_000;

export const userView = (u: UserRecord) => ({
  id: u.id,
  name: u.name,
  email: u.email,
  premium: u.premium,
  team_id: u.team_id,
  user_type_id: u.user_type_id,
  user_type: USER_TYPES[u.user_type_id].name,
  role_id: u.role_id,
  roles: u.role_id === null ? [] : [{ id: u.role_id, team_id: u.team_id }],
  two_factor_enabled: 0,
  invite_pending: u.invite_hash !== null,
  last_login_at: null,
  created_at: formatTimestamp(u.created_at),
  updated_at: formatTimestamp(u.updated_at),
});
const keyView = (k: ApiKeyRecord) => ({ id: k.id, user_id: k.user_id, prefix: k.prefix, created_at: formatTimestamp(k.created_at) });

/** The Laravel `links` list of a page envelope (previous, each page, next), as the users list documents it. */
function pageLinks(env: { current_page: number; last_page: number; first_page_url: string; prev_page_url: string | null; next_page_url: string | null }) {
  const url = (p: number) => env.first_page_url.replace(/([?&]page=)1(?=&|$)/, `$1${p}`);
  return [
    { url: env.prev_page_url, label: '&laquo; Previous', active: false },
    ...Array.from({ length: env.last_page }, (_, i) => ({ url: url(i + 1), label: String(i + 1), active: i + 1 === env.current_page })),
    { url: env.next_page_url, label: 'Next &raquo;', active: false },
  ];
}

export function usersRouter(services: HttpServices): Router<AppState> {
  const router = new Router<AppState>();
  const { store, clock, config } = services;
  const mailer = () => services.provided?.get(MAILER);
  /** Live streams opened by the user must not outlive a change of what they may open. */
  const accessChanged = (userId: number) =>
    services.provided?.get(BUS)?.publishAccess({ type: 'user.access_changed', userId });

  /** The admin, or the user themself. */
  async function loadUser(ctx: ParameterizedContext<AppState>): Promise<UserRecord> {
    const caller = ctx.state.caller;
    requireCaller(caller);
    const id = Number(ctx.params.user);
    if (caller.kind === 'user' && caller.user.id !== id) throw new Forbidden('You may only manage your own keys');
    const user = Number.isInteger(id) ? await store.users.get(id) : null;
    if (!user) throw new NotFound('User not found');
    return user;
  }

  /** A user of the caller's team (any team for the administrator key), for an Administrator to manage. */
  async function loadTeamUser(ctx: ParameterizedContext<AppState>): Promise<UserRecord> {
    const caller = ctx.state.caller;
    requireUserManager(caller);
    const id = Number(ctx.params.user);
    const user = Number.isInteger(id) ? await store.users.get(id) : null;
    // Another team's users are not there for this caller.
    if (!user || (caller.kind === 'user' && user.team_id !== caller.user.team_id)) throw new NotFound('User not found');
    return user;
  }

  async function emailTaken(email: string, exceptId?: number): Promise<void> {
    const same = (await store.users.findByEmail(email)).filter((u) => u.id !== exceptId);
    if (same.length) throw new ValidationError('email: is already a user', { email: ['is already a user'] });
  }

  /** Another Administrator remains in the team after `user` stops being one (or leaves). */
  async function otherAdministrator(user: UserRecord): Promise<UserRecord | null> {
    for (let page = 1; ; page++) {
      const { items } = await store.users.page(user.team_id, page, 100);
      const found = items.find((u) => u.id !== user.id && u.user_type_id === 100);
      if (found || items.length < 100) return found ?? null;
    }
  }

  async function issueKey(userId: number) {
    const key = newApiKey();
    const record = await store.users.addApiKey(userId, hashApiKey(key), key.slice(0, 8), clock.now());
    return { ...keyView(record), api_key: key };
  }

  router.post('/users', async (ctx) => {
    requireAdmin(ctx.state.caller);
    const body = UserCreateBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const now = clock.now();
    const user = await store.users.create({ ...body.data, created_at: now, updated_at: now });
    const key = await issueKey(user.id);
    ctx.status = 201;
    ctx.body = { ...userView(user), api_key: key.api_key, api_key_id: key.id };
  });

  router.post('/users/invite', async (ctx) => {
    const caller = ctx.state.caller;
    requireUserManager(caller);
    const body = UserInviteBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const { name, email, user_type_id, role_id, team_id } = body.data;
    const teamId = await inviteTeam(caller, team_id);
    await emailTaken(email);
    const secret = randomBytes(24).toString('base64url');
    const now = clock.now();
    const user = await store.users.create({
      name, email, premium: caller.kind === 'user' ? caller.user.premium : false, team_id: teamId ?? undefined, user_type_id,
      role_id: role_id ?? null, invite_hash: hashApiKey(secret), invite_expires_at: now + INVITE_TTL_MS, created_at: now, updated_at: now,
    });
    const url = `${publicBaseUrl(ctx, services)}/#/invite/${secret}`;
    ctx.status = 201;
    if (!config.SMTP_RELAY_URL) {
      // No relay to send it through: the link is for the inviter to pass on.
      ctx.body = { ...userView(user), invite_sent: false, invite_url: url };
      return;
    }
    try {
      const m = mailer();
      if (!m) throw new Error('the mail module is not running');
      const inviter = caller.kind === 'user' ? caller.user.name : 'The administrator';
      await m.send({
        to: [email],
        subject: `${inviter} invited you to a team`,
        text: [
          `Hello ${name},`,
          '',
          `${inviter} invited you to join their team as ${USER_TYPES[user_type_id].name}.`,
          'Open this link to set up your API key (it works once, for 7 days):',
          '',
          url,
        ].join('\n'),
        passes: 0,
      });
    } catch (err) {
      // Nobody could use the invite: it is not kept.
      await store.users.delete(user.id);
      throw new HttpError(502, `The invite could not be sent through the SMTP relay: ${(err as Error).message}`);
    }
    ctx.body = { ...userView(user), invite_sent: true };
  });

  /** The team an invite joins: the inviting Administrator's; for the administrator key, `team_id` or a new one (null). */
  async function inviteTeam(caller: Caller, teamId: number | undefined): Promise<number | null> {
    if (caller.kind === 'user') {
      if (teamId !== undefined && teamId !== caller.user.team_id) throw new Forbidden('You may only invite people to your own team');
      return caller.user.team_id;
    }
    if (teamId === undefined) return null;
    if ((await store.users.page(teamId, 1, 1)).total === 0) throw new ValidationError('team_id: no such team', { team_id: ['no such team'] });
    return teamId;
  }

  /** An open invite, for the page that accepts it. */
  router.get('/users/invite/:secret', async (ctx) => {
    const user = await store.users.findByInvite(hashApiKey(ctx.params.secret!));
    if (!user || (user.invite_expires_at ?? 0) <= clock.now()) throw new NotFound('This invite link is not valid (used, expired or never issued)');
    ctx.body = { name: user.name, email: user.email, team_id: user.team_id, user_type_id: user.user_type_id, user_type: USER_TYPES[user.user_type_id].name, expires_at: formatTimestamp(user.invite_expires_at) };
  });

  /** Uses the invite (once) and answers the person's first API key. */
  router.post('/users/invite/:secret/accept', async (ctx) => {
    const user = await store.users.useInvite(hashApiKey(ctx.params.secret!), clock.now());
    if (!user) throw new NotFound('This invite link is not valid (used, expired or never issued)');
    const key = await issueKey(user.id);
    ctx.status = 201;
    ctx.body = { ...userView(user), api_key: key.api_key, api_key_id: key.id };
  });

  router.get('/users', async (ctx) => {
    const caller = ctx.state.caller;
    requireUserManager(caller);
    const q = UserListQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    const { page, per_page, team_id } = q.data;
    const teamId = caller.kind === 'user' ? caller.user.team_id : (team_id ?? null);
    const result = await store.users.page(teamId, page, per_page);
    const env = pageEnvelope(ctx, publicBaseUrl(ctx, services), result.items.map(userView), result.total, page, per_page);
    ctx.body = { ...env, links: pageLinks(env) };
  });

  router.get('/users/me', async (ctx) => {
    const caller = ctx.state.caller;
    requireCaller(caller);
    ctx.body = caller.kind === 'admin' ? { id: null, name: 'administrator', admin: true, premium: true } : { ...userView(caller.user), admin: false };
  });

  router.get('/users/:user', async (ctx) => {
    const caller = ctx.state.caller;
    requireCaller(caller);
    // Themself, or a user an Administrator manages.
    const self = caller.kind === 'user' && String(caller.user.id) === ctx.params.user;
    ctx.body = userView(self ? await loadUser(ctx) : await loadTeamUser(ctx));
  });

  router.put('/users/:user', async (ctx) => {
    const user = await loadTeamUser(ctx);
    const body = UserUpdateBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw fromZod(body.error);
    const patch = body.data;
    if (patch.email !== undefined) await emailTaken(patch.email, user.id);
    if (user.user_type_id === 100 && patch.user_type_id !== undefined && patch.user_type_id !== 100 && !(await otherAdministrator(user))) {
      throw new Conflict('A team keeps at least one Administrator: make someone else Administrator first', { user_type_id: ['is the last Administrator of the team'] });
    }
    const updated = await store.users.update(user.id, { ...patch, updated_at: clock.now() });
    if (!updated) throw new NotFound('User not found');
    if (patch.user_type_id !== undefined && patch.user_type_id !== user.user_type_id) accessChanged(user.id);
    ctx.body = userView(updated);
  });

  router.delete('/users/:user', async (ctx) => {
    const caller = ctx.state.caller;
    const user = await loadTeamUser(ctx);
    const q = UserDeleteQuery.safeParse(ctx.query);
    if (!q.success) throw fromZod(q.error);
    if (caller.kind === 'user' && caller.user.id === user.id) throw new Conflict('You cannot remove yourself; another Administrator can');
    const others = (await store.users.page(user.team_id, 1, 2)).total > 1;
    if (user.user_type_id === 100 && others && !(await otherAdministrator(user))) {
      throw new Conflict('A team keeps at least one Administrator: make someone else Administrator first');
    }
    const owned = await store.tokens.ownedBy(user.id);
    if (q.data.tokens === 'team' && owned.length) {
      const heir = caller.kind === 'user' ? caller.user : await heirOf(user);
      if (!heir) throw new Conflict('Nobody else is in the team to take the tokens: remove with tokens=delete', { tokens: ['nobody else is in the team'] });
      for (const uuid of owned) {
        const t = await store.tokens.get(uuid);
        if (t) await services.tokens.reassign(t, heir.id);
      }
    } else {
      for (const uuid of owned) {
        const t = await store.tokens.get(uuid);
        if (t) await services.tokens.delete(t);
      }
    }
    await store.users.delete(user.id);
    accessChanged(user.id);
    ctx.status = 204;
  });

  /** Who takes a removed user's tokens when the administrator key removes them: an Administrator, else any member. */
  async function heirOf(user: UserRecord): Promise<UserRecord | null> {
    const admin = await otherAdministrator(user);
    if (admin) return admin;
    const { items } = await store.users.page(user.team_id, 1, 2);
    return items.find((u) => u.id !== user.id) ?? null;
  }

  router.get('/users/:user/api-keys', async (ctx) => {
    const user = await loadUser(ctx);
    ctx.body = { data: (await store.users.listApiKeys(user.id)).map(keyView) };
  });

  router.post('/users/:user/api-keys', async (ctx) => {
    const user = await loadUser(ctx);
    ctx.status = 201;
    ctx.body = await issueKey(user.id);
  });

  router.delete('/users/:user/api-keys/:key', async (ctx) => {
    const user = await loadUser(ctx);
    if (!(await store.users.deleteApiKey(user.id, Number(ctx.params.key)))) throw new NotFound('API key not found');
    accessChanged(user.id);
    ctx.status = 204;
  });

  return router;
}
