import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const UserCreateBody = z.object({
  name: z.string().trim().min(1).max(255),
  email: z.string().trim().email().max(255),
  premium: z.boolean().default(false),
});

/** 100 Administrator, 200 Member, 300 Viewer (core/auth/access.ts USER_TYPES). */
export const UserTypeIdSchema = z.union([z.literal(100), z.literal(200), z.literal(300)], {
  error: 'must be one of 100 (Administrator), 200 (Member), 300 (Viewer)',
});

const roleId = z.number().int().positive().nullable().describe('A role label kept with the user; what they may do is the user type');

export const UserInviteBody = z.object({
  name: z.string().trim().min(1).max(255),
  email: z.string().trim().email().max(255),
  user_type_id: UserTypeIdSchema,
  role_id: roleId.optional(),
  team_id: z.number().int().positive().optional().describe('Administrator key only: the team to join (default: a new team of their own)'),
});

export const UserUpdateBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    email: z.string().trim().email().max(255),
    user_type_id: UserTypeIdSchema,
    role_id: roleId,
  })
  .partial();

export const UserListQuery = z.object({
  page: pageNumber,
  per_page: perPage(15),
  team_id: z.coerce.number().int().positive().optional().describe('Administrator key only: one team'),
});

export const UserDeleteQuery = z.object({
  tokens: z.enum(['team', 'delete']).default('team').describe("The user's tokens: `team` gives them to a remaining member, `delete` deletes them with their requests"),
});

/** An API key as listed (its secret is shown only when issued, as `api_key`). */
export const ApiKeyView = z.object({ id: z.number().int(), user_id: z.number().int(), prefix: z.string(), created_at: z.string().nullable() });

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
  two_factor_enabled: z.number().int(),
  invite_pending: z.boolean(),
  last_login_at: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
