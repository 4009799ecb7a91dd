// Users, teams and API keys as the API reads and shows them: the bodies a user is created, invited
// and changed with, and the views of a user, an API key and an open invite (core/http/users serves them).
import { z } from 'zod';
import type { ApiKeyRecord, UserRecord } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';
import { USER_TYPES } from './access.js';

export const UserCreateBody = z.object({
  name: z.string().trim().min(1).max(255),
  email: z.string().trim().email().max(255),
  premium: z.boolean().default(false),
});

/** 100 Administrator, 200 Member, 300 Viewer (USER_TYPES in access.ts). */
export const UserTypeIdSchema = z.union([z.literal(100), z.literal(200), z.literal(300)], {
  error: 'must be one of 100 (Administrator), 200 (Member), 300 (Viewer)',
});

const roleId = z.number().int().positive().nullable().describe('A role label kept with the user; what they may do is the user type');

const groupIds = z
  .array(z.number().int().positive())
  .max(100)
  .nullable()
  .describe("The team's groups the user is limited to: they open only the tokens and schedules in these groups. null: every token and schedule of the team");

export const UserInviteBody = z.object({
  name: z.string().trim().min(1).max(255),
  email: z.string().trim().email().max(255),
  user_type_id: UserTypeIdSchema,
  role_id: roleId.optional(),
  group_ids: groupIds.optional(),
  team_id: z.number().int().positive().optional().describe('Administrator key only: the team to join (default: a new team of their own)'),
});

export const UserUpdateBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    email: z.string().trim().email().max(255),
    user_type_id: UserTypeIdSchema,
    role_id: roleId,
    group_ids: groupIds,
  })
  .partial();

/** An API key as listed (its secret is shown only when issued, as `api_key`). */
export const ApiKeyView = z.object({ id: z.number().int(), user_id: z.number().int(), prefix: z.string(), created_at: z.string().nullable() });
/** A key just issued: the only time its secret is shown. */
export const IssuedApiKey = ApiKeyView.extend({ api_key: z.string() });

export const UserView = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  premium: z.boolean(),
  team_id: z.number().int(),
  user_type_id: UserTypeIdSchema,
  user_type: z.string(),
  role_id: z.number().int().nullable(),
  roles: z.array(z.object({ id: z.number().int(), team_id: z.number().int() })),
  group_ids: z.array(z.number().int()).nullable(),
  two_factor_enabled: z.number().int(),
  invite_pending: z.boolean(),
  last_login_at: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
/** A user created with (or having accepted an invite for) their first API key. */
export const UserWithKey = UserView.extend({ api_key: z.string(), api_key_id: z.number().int() });
/** An invited user: `invite_url` when no SMTP relay sent the link (the inviter passes it on). */
export const InvitedUser = UserView.extend({ invite_sent: z.boolean(), invite_url: z.string().optional() });
/** The calling user, or the administrator key's stand-in. */
export const CallerView = z.union([UserView.extend({ admin: z.literal(false) }), z.object({ id: z.null(), name: z.string(), admin: z.literal(true), premium: z.boolean() })]);
/** Who an open invite is for. */
export const InviteView = z.object({
  name: z.string(),
  email: z.string(),
  team_id: z.number().int(),
  user_type_id: UserTypeIdSchema,
  user_type: z.string(),
  expires_at: z.string().nullable(),
});

export const userView = (u: UserRecord): z.infer<typeof UserView> => ({
  id: u.id,
  name: u.name,
  email: u.email,
  premium: u.premium,
  team_id: u.team_id,
  user_type_id: u.user_type_id,
  user_type: USER_TYPES[u.user_type_id].name,
  role_id: u.role_id,
  roles: u.role_id === null ? [] : [{ id: u.role_id, team_id: u.team_id }],
  group_ids: u.group_ids ?? null,
  two_factor_enabled: 0,
  invite_pending: u.invite_hash !== null,
  last_login_at: null,
  created_at: formatTimestamp(u.created_at),
  updated_at: formatTimestamp(u.updated_at),
});
export const keyView = (k: ApiKeyRecord): z.infer<typeof ApiKeyView> => ({ id: k.id, user_id: k.user_id, prefix: k.prefix, created_at: formatTimestamp(k.created_at) });
