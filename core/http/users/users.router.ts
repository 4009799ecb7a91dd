// Users, teams and API keys. A team is named by its first member's ID; every user belongs to one,
// with a user type (USER_TYPES in core/auth/access.ts) that says what they may do. Administrators
// invite people by e-mail (a one-time link to set up their API key), list, change and remove the
// team's users; the administrator key (ADMIN_API_KEY) does all of it for every team.
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { requireCaller, requireUserManager, USER_TYPES, type Caller } from '../../auth/access.js';
import { hashApiKey, newApiKey } from '../../auth/secrets.js';
import { ApiKeyView, CallerView, InvitedUser, InviteView, IssuedApiKey, UserCreateBody, UserInviteBody, UserUpdateBody, UserView, UserWithKey, keyView, userView } from '../../auth/users.schema.js';
import { Conflict, Forbidden, HttpError, NotFound, ValidationError } from '../../errors.js';
import { BUS, MAIL_RELAY, SCHEDULES } from '../../service-keys.js';
import type { UserRecord } from '../../store/types.js';
import { formatTimestamp } from '../../util/time.js';
import { listOf, mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { UserDeleteQuery, UserListQuery } from './users.schema.js';

/** How long an invite link stays valid. */
export const INVITE_TTL_MS = 7 * 24 * 3600_000;

const route = routeFor<HttpServices>();
type Ctx = ParameterizedContext<AppState>;

/** Live streams opened by the user must not outlive a change of what they may open. */
const accessChanged = (services: HttpServices, userId: number) => services.provided?.get(BUS)?.publishAccess({ type: 'user.access_changed', userId });

/** One entry of a page's Laravel `links` list. */
const PageLink = z.object({ url: z.string().nullable(), label: z.string(), active: z.boolean() });

/** The Laravel `links` list of a page envelope (previous, each page, next), as the users list documents it. */
function pageLinks(env: { current_page: number; last_page: number; first_page_url: string; prev_page_url: string | null; next_page_url: string | null }) {
  const url = (p: number) => env.first_page_url.replace(/([?&]page=)1(?=&|$)/, `$1${p}`);
  return [
    { url: env.prev_page_url, label: '&laquo; Previous', active: false },
    ...Array.from({ length: env.last_page }, (_, i) => ({ url: url(i + 1), label: String(i + 1), active: i + 1 === env.current_page })),
    { url: env.next_page_url, label: 'Next &raquo;', active: false },
  ];
}

/** The admin, or the user themself. */
async function loadUser(ctx: Ctx, { store }: HttpServices): Promise<UserRecord> {
  const caller = ctx.state.caller;
  requireCaller(caller);
  const id = Number(ctx.params.user_id);
  if (caller.kind === 'user' && caller.user.id !== id) throw new Forbidden('You may only manage your own keys');
  const user = Number.isInteger(id) ? await store.users.get(id) : null;
  if (!user) throw new NotFound('User not found');
  return user;
}

/** A user of the caller's team (any team for the administrator key), for an Administrator to manage. */
async function loadTeamUser(ctx: Ctx, { store }: HttpServices): Promise<UserRecord> {
  const caller = ctx.state.caller;
  requireUserManager(caller);
  const id = Number(ctx.params.user_id);
  const user = Number.isInteger(id) ? await store.users.get(id) : null;
  // Another team's users are not there for this caller.
  if (!user || (caller.kind === 'user' && user.team_id !== caller.user.team_id)) throw new NotFound('User not found');
  return user;
}

async function emailTaken({ store }: HttpServices, email: string, exceptId?: number): Promise<void> {
  const same = (await store.users.findByEmail(email)).filter((u) => u.id !== exceptId);
  if (same.length) throw new ValidationError('email: is already a user', { email: ['is already a user'] });
}

/** Another Administrator remains in the team after `user` stops being one (or leaves). */
async function otherAdministrator({ store }: HttpServices, user: UserRecord): Promise<UserRecord | null> {
  for (let page = 1; ; page++) {
    const { items } = await store.users.page(user.team_id, page, 100);
    const found = items.find((u) => u.id !== user.id && u.user_type_id === 100);
    if (found || items.length < 100) return found ?? null;
  }
}

/** Who takes a removed user's tokens and schedules when the administrator key removes them: an Administrator, else any member. */
async function heirOf(services: HttpServices, user: UserRecord): Promise<UserRecord | null> {
  const admin = await otherAdministrator(services, user);
  if (admin) return admin;
  const { items } = await services.store.users.page(user.team_id, 1, 2);
  return items.find((u) => u.id !== user.id) ?? null;
}

/** Deletes a user's schedules, cancelling their jobs when the scheduler runs here (else its next sync drops them). */
async function deleteSchedulesOf(services: HttpServices, userId: number): Promise<void> {
  const scheduleService = services.provided?.get(SCHEDULES)?.service;
  for (;;) {
    const { items } = await services.store.schedules.list({ userIds: [userId] }, 1, 100);
    for (const s of items) {
      if (scheduleService) await scheduleService.delete(s);
      else await services.store.schedules.delete(s.id);
    }
    if (items.length < 100) return;
  }
}

async function issueKey({ store, clock }: HttpServices, userId: number): Promise<z.infer<typeof IssuedApiKey>> {
  const key = newApiKey();
  const record = await store.users.addApiKey(userId, hashApiKey(key), key.slice(0, 8), clock.now());
  return { ...keyView(record), api_key: key };
}

/** The team an invite joins: the inviting Administrator's; for the administrator key, `team_id` or a new one (null). */
async function inviteTeam({ store }: HttpServices, caller: Caller, teamId: number | undefined): Promise<number | null> {
  if (caller.kind === 'user') {
    if (teamId !== undefined && teamId !== caller.user.team_id) throw new Forbidden('You may only invite people to your own team');
    return caller.user.team_id;
  }
  if (teamId === undefined) return null;
  if ((await store.users.page(teamId, 1, 1)).total === 0) throw new ValidationError('team_id: no such team', { team_id: ['no such team'] });
  return teamId;
}

/** Every ID names a group of a member of `teamId` (a new team, null, has none): 422 naming the first that does not. */
async function teamGroups({ store }: HttpServices, teamId: number | null, groupIds: number[]): Promise<void> {
  for (const id of groupIds) {
    const group = await store.groups.get(id);
    const owner = group && teamId !== null ? await store.users.get(group.user_id) : null;
    if (!owner || owner.team_id !== teamId) throw new ValidationError(`group_ids: no group ${id} in the team`, { group_ids: [`${id} is not a group of the team`] });
  }
}

const NOT_AN_INVITE = 'This invite link is not valid (used, expired or never issued)';

/** The users API (api/users.md). */
export const userRoutes = [
  route({
    method: 'post',
    path: '/users',
    summary: 'Create a user in a new team of their own, with an API key (administrator key)',
    auth: 'admin',
    body: UserCreateBody,
    response: { status: 201, schema: UserWithKey },
    handler: async (ctx, services) => {
      const now = services.clock.now();
      const user = await services.store.users.create({ ...ctx.input.body, created_at: now, updated_at: now });
      const key = await issueKey(services, user.id);
      return { ...userView(user), api_key: key.api_key, api_key_id: key.id };
    },
  }),
  route({
    method: 'post',
    path: '/users/invite',
    summary: 'Invite someone into the team (Administrator): a one-time link to set up their API key, e-mailed through SMTP_RELAY_URL, else answered as `invite_url`; 502 when the relay refuses',
    auth: 'user-manager',
    body: UserInviteBody,
    response: { status: 201, schema: InvitedUser },
    handler: async (ctx, services) => {
      const { store, clock, config } = services;
      const caller = ctx.state.caller;
      const { name, email, user_type_id, role_id, group_ids, team_id } = ctx.input.body;
      const teamId = await inviteTeam(services, caller, team_id);
      await emailTaken(services, email);
      if (group_ids) await teamGroups(services, teamId, group_ids);
      const secret = randomBytes(24).toString('base64url');
      const now = clock.now();
      const user = await store.users.create({
        name,
        email,
        premium: caller.kind === 'user' ? caller.user.premium : false,
        team_id: teamId ?? undefined,
        user_type_id,
        role_id: role_id ?? null,
        group_ids: group_ids ?? null,
        invite_hash: hashApiKey(secret),
        invite_expires_at: now + INVITE_TTL_MS,
        created_at: now,
        updated_at: now,
      });
      const url = `${publicBaseUrl(ctx, services)}/#/invite/${secret}`;
      // No relay to send it through: the link is for the inviter to pass on.
      if (!config.SMTP_RELAY_URL) return { ...userView(user), invite_sent: false, invite_url: url };
      try {
        const m = services.provided?.get(MAIL_RELAY);
        if (!m) throw new Error('the mail module is not running');
        const inviter = caller.kind === 'user' ? caller.user.name : 'The administrator';
        await m.send({
          to: [email],
          subject: `${inviter} invited you to a team`,
          text: [`Hello ${name},`, '', `${inviter} invited you to join their team as ${USER_TYPES[user_type_id].name}.`, 'Open this link to set up your API key (it works once, for 7 days):', '', url].join('\n'),
          passes: 0,
        });
      } catch (err) {
        // Nobody could use the invite: it is not kept.
        await store.users.delete(user.id);
        throw new HttpError(502, `The invite could not be sent through the SMTP relay: ${(err as Error).message}`);
      }
      return { ...userView(user), invite_sent: true };
    },
  }),
  route({
    method: 'get',
    path: '/users/invite/{secret}',
    summary: 'Who an open invite is for (no key needed)',
    auth: 'public',
    response: { status: 200, schema: InviteView },
    handler: async (ctx, { store, clock }) => {
      const user = await store.users.findByInvite(hashApiKey(ctx.params.secret!));
      if (!user || (user.invite_expires_at ?? 0) <= clock.now()) throw new NotFound(NOT_AN_INVITE);
      return { name: user.name, email: user.email, team_id: user.team_id, user_type_id: user.user_type_id, user_type: USER_TYPES[user.user_type_id].name, expires_at: formatTimestamp(user.invite_expires_at) };
    },
  }),
  route({
    method: 'post',
    path: '/users/invite/{secret}/accept',
    summary: 'Use the invite (once): answers the user with their first API key (no key needed)',
    auth: 'public',
    response: { status: 201, schema: UserWithKey },
    handler: async (ctx, services) => {
      const user = await services.store.users.useInvite(hashApiKey(ctx.params.secret!), services.clock.now());
      if (!user) throw new NotFound(NOT_AN_INVITE);
      const key = await issueKey(services, user.id);
      return { ...userView(user), api_key: key.api_key, api_key_id: key.id };
    },
  }),
  route({
    method: 'get',
    path: '/users',
    summary: "The team's users, paged, with Laravel's `links` (Administrator; the administrator key sees every team or `team_id`'s)",
    auth: 'user-manager',
    query: UserListQuery,
    response: { status: 200, schema: pageOf(UserView, z.object({ links: z.array(PageLink) })) },
    handler: async (ctx, services) => {
      const caller = ctx.state.caller;
      const { page, per_page, team_id } = ctx.input.query;
      const teamId = caller.kind === 'user' ? caller.user.team_id : (team_id ?? null);
      const result = await services.store.users.page(teamId, page, per_page);
      const env = pageEnvelope(ctx, publicBaseUrl(ctx, services), result.items.map(userView), result.total, page, per_page);
      return { ...env, links: pageLinks(env) };
    },
  }),
  route({
    method: 'get',
    path: '/users/me',
    summary: 'The calling user (`admin: true` and no user fields for the administrator key)',
    auth: 'caller',
    response: { status: 200, schema: CallerView },
    handler: (ctx) => {
      const caller = ctx.state.caller;
      return caller.kind === 'user' ? { ...userView(caller.user), admin: false } : { id: null, name: 'administrator', admin: true, premium: true };
    },
  }),
  route({
    method: 'get',
    path: '/users/{user_id}',
    summary: "Get a user (themself, or a user of the Administrator's team)",
    auth: 'caller',
    response: { status: 200, schema: UserView },
    handler: async (ctx, services) => {
      const caller = ctx.state.caller;
      // Themself, or a user an Administrator manages.
      const self = caller.kind === 'user' && String(caller.user.id) === ctx.params.user_id;
      return userView(self ? await loadUser(ctx, services) : await loadTeamUser(ctx, services));
    },
  }),
  route({
    method: 'put',
    path: '/users/{user_id}',
    summary: 'Change name, e-mail, user type or role (Administrator); a team keeps one Administrator (409)',
    auth: 'user-manager',
    body: UserUpdateBody,
    response: { status: 200, schema: UserView },
    handler: async (ctx, services) => {
      const user = await loadTeamUser(ctx, services);
      const patch = ctx.input.body;
      if (patch.email !== undefined) await emailTaken(services, patch.email, user.id);
      if (patch.group_ids) await teamGroups(services, user.team_id, patch.group_ids);
      if (user.user_type_id === 100 && patch.user_type_id !== undefined && patch.user_type_id !== 100 && !(await otherAdministrator(services, user))) {
        throw new Conflict('A team keeps at least one Administrator: make someone else Administrator first', { user_type_id: ['is the last Administrator of the team'] });
      }
      const updated = await services.store.users.update(user.id, { ...patch, updated_at: services.clock.now() });
      if (!updated) throw new NotFound('User not found');
      const groupsChanged = patch.group_ids !== undefined && JSON.stringify(patch.group_ids) !== JSON.stringify(user.group_ids ?? null);
      if ((patch.user_type_id !== undefined && patch.user_type_id !== user.user_type_id) || groupsChanged) accessChanged(services, user.id);
      return userView(updated);
    },
  }),
  route({
    method: 'delete',
    path: '/users/{user_id}',
    summary: 'Remove a user (Administrator) and their API keys; `tokens=team` (default) gives their tokens and schedules to the team, `tokens=delete` deletes them',
    auth: 'user-manager',
    query: UserDeleteQuery,
    response: { status: 204 },
    handler: async (ctx, services) => {
      const { store, tokens } = services;
      const caller = ctx.state.caller;
      const user = await loadTeamUser(ctx, services);
      if (caller.kind === 'user' && caller.user.id === user.id) throw new Conflict('You cannot remove yourself; another Administrator can');
      const others = (await store.users.page(user.team_id, 1, 2)).total > 1;
      if (user.user_type_id === 100 && others && !(await otherAdministrator(services, user))) {
        throw new Conflict('A team keeps at least one Administrator: make someone else Administrator first');
      }
      // Their schedules follow the same choice as their tokens.
      const owned = await store.tokens.ownedBy(user.id);
      const hasSchedules = (await store.schedules.list({ userIds: [user.id] }, 1, 1)).total > 0;
      if (ctx.input.query.tokens === 'team' && (owned.length || hasSchedules)) {
        const heir = caller.kind === 'user' ? caller.user : await heirOf(services, user);
        if (!heir) throw new Conflict('Nobody else is in the team to take their tokens and schedules: remove with tokens=delete', { tokens: ['nobody else is in the team'] });
        for (const uuid of owned) {
          const t = await store.tokens.get(uuid);
          if (t) await tokens.reassign(t, heir.id);
        }
        await store.schedules.reassignOwner(user.id, heir.id, services.clock.now());
      } else {
        for (const uuid of owned) {
          const t = await store.tokens.get(uuid);
          if (t) await tokens.delete(t);
        }
        await deleteSchedulesOf(services, user.id);
      }
      await store.users.delete(user.id);
      accessChanged(services, user.id);
    },
  }),
  route({
    method: 'get',
    path: '/users/{user_id}/api-keys',
    summary: "List a user's API keys (themself, or the administrator key)",
    auth: 'caller',
    response: { status: 200, schema: listOf(ApiKeyView) },
    handler: async (ctx, services) => ({ data: (await services.store.users.listApiKeys((await loadUser(ctx, services)).id)).map(keyView) }),
  }),
  route({
    method: 'post',
    path: '/users/{user_id}/api-keys',
    summary: 'Issue an API key (its secret is shown this once, as `api_key`)',
    auth: 'caller',
    response: { status: 201, schema: IssuedApiKey },
    handler: async (ctx, services) => issueKey(services, (await loadUser(ctx, services)).id),
  }),
  route({
    method: 'delete',
    path: '/users/{user_id}/api-keys/{key_id}',
    summary: 'Revoke an API key',
    auth: 'caller',
    response: { status: 204 },
    handler: async (ctx, services) => {
      const user = await loadUser(ctx, services);
      if (!(await services.store.users.deleteApiKey(user.id, Number(ctx.params.key_id)))) throw new NotFound('API key not found');
      accessChanged(services, user.id);
    },
  }),
];

export function usersRouter(services: HttpServices): Router<AppState> {
  return mountRoutes(new Router<AppState>(), userRoutes, services);
}
