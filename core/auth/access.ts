// Who is calling, and what they may open. Used by every API route; capture URLs are public.
import { Forbidden, Unauthorized } from '../errors.js';
import type { Store, TokenRecord, UserRecord, UserTypeId } from '../store/types.js';
import { hashApiKey, safeEqual } from './secrets.js';

export type Caller = { kind: 'anonymous' } | { kind: 'admin' } | { kind: 'user'; user: UserRecord };

export const ANONYMOUS: Caller = { kind: 'anonymous' };

/** Resolves the `Api-Key` header. A key that is present but unknown is a 401, never anonymous. */
export async function identify(apiKey: string | undefined, store: Store, adminKey: string | undefined): Promise<Caller> {
  if (apiKey === undefined || apiKey === '') return ANONYMOUS;
  if (adminKey && safeEqual(apiKey, adminKey)) return { kind: 'admin' };
  const user = await store.users.findByApiKeyHash(hashApiKey(apiKey));
  if (!user) throw new Unauthorized('Invalid API key');
  return { kind: 'user', user };
}

export function requireCaller(caller: Caller): asserts caller is Exclude<Caller, { kind: 'anonymous' }> {
  if (caller.kind === 'anonymous') throw new Unauthorized('Authentication required: send the Api-Key header');
}

export function requireAdmin(caller: Caller): void {
  requireCaller(caller);
  if (caller.kind !== 'admin') throw new Forbidden('Only the administrator may do this');
}

export function requirePremium(caller: Caller, what: string): void {
  requireCaller(caller);
  if (caller.kind === 'user' && !caller.user.premium) throw new Forbidden(`${what} needs a premium account`);
}

/** The groups a user is limited to (UserRecord.group_ids); undefined: not limited. */
export function groupLimit(caller: Caller): readonly number[] | undefined {
  return caller.kind === 'user' ? (caller.user.group_ids ?? undefined) : undefined;
}

/**
 * The groups a list shows: the caller's limit, narrowed to `groupId` when one is asked for (none
 * when it is outside the limit); undefined: every group and none.
 */
export function listedGroups(caller: Caller, groupId: number | undefined): readonly number[] | undefined {
  const limit = groupLimit(caller);
  if (groupId === undefined) return limit;
  return limit && !limit.includes(groupId) ? [] : [groupId];
}

function inTeam(caller: Caller, token: TokenRecord): boolean {
  if (caller.kind !== 'user' || token.user_id === null) return false;
  return caller.user.id === token.user_id || (token.team_id !== null && caller.user.team_id === token.team_id);
}

/**
 * The token's owner, a member of the owner's team, or the administrator key; a user limited to
 * groups only for the team's tokens in those groups.
 */
export function isOwner(caller: Caller, token: TokenRecord): boolean {
  if (caller.kind === 'admin') return true;
  if (!inTeam(caller, token)) return false;
  const limit = groupLimit(caller);
  return !limit || (token.group_id !== null && limit.includes(token.group_id));
}

/**
 * What an API call may do: `read` (GET), `own_keys` (a user's own API keys), `write` (every other
 * change: tokens, requests, actions, schedules...), `manage_users` (invite, list, change, remove
 * the team's users).
 */
export type Permission = 'read' | 'own_keys' | 'write' | 'manage_users';

/** What each user type may do: the one table (docs/teams.md shows it). */
export const USER_TYPES: Record<UserTypeId, { name: string; may: readonly Permission[] }> = {
  100: { name: 'Administrator', may: ['read', 'own_keys', 'write', 'manage_users'] },
  200: { name: 'Member', may: ['read', 'own_keys', 'write'] },
  300: { name: 'Viewer', may: ['read', 'own_keys'] },
};

/**
 * Whether a call with this method only reads: every route's method says what it does (a GET reads,
 * every other method changes something). The one rule behind what a Viewer may do (permissionFor)
 * and what a token password opens (loadToken).
 */
export function readsOnly(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/** The permission an API call needs, from its method and path. */
export function permissionFor(caller: Caller, method: string, path: string): Permission {
  if (readsOnly(method)) return 'read';
  if (caller.kind === 'user' && path.startsWith(`/users/${caller.user.id}/api-keys`)) return 'own_keys';
  // Accepting an invite needs no key; one sent along (any type's) must not stand in the way.
  if (path.startsWith('/users/invite/') && path.endsWith('/accept')) return 'own_keys';
  // Marking the error log read changes only what the caller has seen (each account's own flags).
  if (method === 'POST' && path === '/errors/read') return 'read';
  return 'write';
}

/**
 * The one check of user types. The administrator key may do everything; anonymous callers are
 * limited elsewhere (they only reach anonymous tokens).
 */
export function requirePermission(caller: Caller, permission: Permission): void {
  if (caller.kind !== 'user') return;
  const type = USER_TYPES[caller.user.user_type_id];
  if (!type.may.includes(permission)) {
    throw new Forbidden(`A ${type.name} may not do this (${permission === 'manage_users' ? 'managing users needs an Administrator' : 'changes need a Member or Administrator'})`);
  }
}

/** Who may manage users: the administrator key, or an Administrator (of their own team). */
export function requireUserManager(caller: Caller): void {
  requireCaller(caller);
  requirePermission(caller, 'manage_users');
}

/** The password offered with a request: `?password=` or HTTP Basic Auth (any user name). */
export function offeredPassword(query: Record<string, unknown>, authorization: string | undefined): string | undefined {
  if (typeof query.password === 'string') return query.password;
  const m = /^Basic\s+(.+)$/i.exec(authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i >= 0 ? decoded.slice(i + 1) : decoded;
}

/** What a call does to a token: reads it (its settings, requests, actions, streams) or changes it. */
export type TokenAccess = 'read' | 'write';

/** Whether an offered password is the token's (TokenPasswords: throttled for a caller, plain for a stream's re-check). */
export type PasswordCheck = (token: TokenRecord, password: string) => Promise<boolean>;

/**
 * Who may open a token's API resources, the one decision:
 * - its owner, a member of the owner's team, or the administrator key: everything (a Viewer's
 *   changes are refused before, by user type);
 * - the token password, when one is set: reading only, while the token has an owner, since changes
 *   need the owner's key. A change with only the password is refused without checking it;
 * - an anonymous token (no owner) has no owner key: whoever knows it (and its password, when one
 *   is set) may read and change it.
 */
export async function authorizeToken(caller: Caller, token: TokenRecord, access: TokenAccess, password: string | undefined, checkPassword: PasswordCheck): Promise<void> {
  if (isOwner(caller, token)) return;
  if (inTeam(caller, token)) throw new Forbidden('This token is outside the groups you may open');
  if (token.user_id !== null && access === 'write') {
    if (password !== undefined && token.password_hash) throw new Forbidden("A token password only reads the token: changes need the owner's API key");
    if (caller.kind === 'anonymous') throw new Unauthorized('Authentication required: send the Api-Key header');
    throw new Forbidden('This token belongs to another user');
  }
  if (token.password_hash) {
    if (password !== undefined && (await checkPassword(token, password))) return;
    throw new Unauthorized(password === undefined ? 'This token is password protected' : 'Wrong token password');
  }
  if (token.user_id === null) return;
  if (caller.kind === 'anonymous') throw new Unauthorized('Authentication required: send the Api-Key header');
  throw new Forbidden('This token belongs to another user');
}

/**
 * The calling user's ID, for resources that belong to users (groups, global variables, schedules):
 * 401 without a key, 403 for the administrator, who is no user.
 */
export function requireUser(caller: Caller, what: string): number {
  requireCaller(caller);
  if (caller.kind !== 'user') throw new Forbidden(`${what} belong to users: use a user API key`);
  return caller.user.id;
}
