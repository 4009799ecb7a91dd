import { z } from 'zod';
import { RedactionSettingsSchema } from '../../sdk/redaction.js';
import { pageNumber, perPage } from '../paging.js';
import { AliasSchema } from '../../tokens/tokens.schema.js';

export const TokenListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
  order_by: z.enum(['created_at', 'token_id']).default('created_at'),
  order_direction: z.enum(['asc', 'desc']).default('asc'),
});

export const PasswordBody = z.object({
  password: z.string().max(256),
  old_password: z.string().max(256).nullable().optional(),
});

export const AliasBody = z.object({ alias: AliasSchema.nullable() });

/** A Token as the API returns it (documentation and /openapi.json). */
export const TokenView = z.object({
  uuid: z.string().uuid(),
  redirect: z.boolean(),
  alias: z.string().nullable(),
  actions: z.boolean(),
  cors: z.boolean(),
  expiry: z.union([z.number(), z.boolean(), z.null()]),
  timeout: z.number().int(),
  listen: z.number().int(),
  premium: z.boolean(),
  premium_expires_at: z.string().nullable(),
  user_id: z.number().int().nullable(),
  team_id: z.number().int().nullable(),
  ip: z.string(),
  user_agent: z.string(),
  default_content: z.string(),
  default_status: z.number().int(),
  default_content_type: z.string(),
  request_limit: z.number().int().nullable(),
  description: z.string().nullable(),
  group_id: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().nullable(),
  redaction: RedactionSettingsSchema.nullable(),
  requests: z.number().int().optional(),
  latest_request_id: z.string().nullable().optional(),
  latest_request_at: z.string().nullable().optional(),
});
