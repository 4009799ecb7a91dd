// What a token's create and update bodies may hold, and which aliases are taken by the API and
// the web page. The token service validates with these; the HTTP layer imports them from here
// (domain services own their schemas, core/http never the other way round).
import { z } from 'zod';
import { headerValue } from '@capture/sdk/headers';
import { RedactionSettingsSchema } from '../shared/redaction.js';

export const ALIAS = /^[a-zA-Z0-9_-]{3,32}$/;
/** First path segments the API and the web page own; no alias may take them. */
export const RESERVED_SEGMENTS = new Set([
  'token',
  'tokens',
  'users',
  'user',
  'schedules',
  'healthz',
  'readyz',
  'metrics',
  'openapi.json',
  'api',
  'app',
  'assets',
  'static',
  'action-types',
  'groups',
  'global-variables',
  'variables',
  'ws',
  'socket.io',
  'events',
  'sse',
  'realtime',
  'favicon.ico',
  'robots.txt',
  'docs',
  'login',
  'logout',
  'admin',
  'workflows',
  '_',
  'index.html',
  'providers',
  'provider-types',
  'databases',
  'templates',
  // The web page's hash routes (#/account, #/welcome, #/invite): a token alias there would be unreachable.
  'account',
  'welcome',
  'invite',
  // The error log (GET /errors) and the page's view-only share route (#/share/...).
  'errors',
  'share',
  // Sample deliveries (GET /samples, POST /samples/send).
  'samples',
  // Queue Profiles (/queue-profiles).
  'queue-profiles',
]);

export const AliasSchema = z
  .string()
  .regex(ALIAS, 'must be 3 to 32 characters of letters, digits, - and _')
  .refine((a) => !RESERVED_SEGMENTS.has(a.toLowerCase()), 'is reserved');

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** The seed's cap on `request_limit`, and the default of the MAX_REQUEST_LIMIT setting. */
export const DEFAULT_MAX_REQUEST_LIMIT = 10_000;

/** `request_limit` from 0 to the operator's MAX_REQUEST_LIMIT; the error names the setting. */
const requestLimit = (max: number) => z.number().int().min(0).max(max, `must be at most ${max} (the MAX_REQUEST_LIMIT setting)`);

/** The create body of the seed; every field optional. `request_limit` is checked by tokenSchemas. */
export const TokenCreateSchema = z.object({
  default_status: int(200, 599).optional(),
  default_content: z
    .string()
    .max(10 * 1024 * 1024)
    .optional(),
  // Sent as the Content-Type of every answer: it must be a sendable header value.
  default_content_type: headerValue().min(1).max(255).optional(),
  timeout: int(0, 30).optional(),
  listen: int(0, 10).optional(),
  expiry: z.union([z.number().int().min(1), z.boolean(), z.null()]).optional(),
  request_limit: requestLimit(DEFAULT_MAX_REQUEST_LIMIT).optional(),
  cors: z.boolean().optional(),
  alias: AliasSchema.nullable().optional(),
  actions: z.boolean().optional(),
  clone_from: z.string().min(1).max(64).optional(),
  group_id: z.number().int().min(1).nullable().optional(),
  description: z.string().max(1000).nullable().optional(),
  redirect: z.boolean().optional(),
  /** Masking applied before a capture is stored, streamed or exported (docs/redaction.md); null removes it. */
  redaction: RedactionSettingsSchema.nullable().optional(),
});
export type TokenCreateBody = z.infer<typeof TokenCreateSchema>;

/**
 * Fields of a Token that a client may send back unchanged (read-modify-write) but that the API
 * sets itself; they are dropped before validation.
 */
export const READ_ONLY_TOKEN_FIELDS = [
  'uuid',
  'premium',
  'premium_expires_at',
  'user_id',
  'team_id',
  'ip',
  'user_agent',
  'created_at',
  'updated_at',
  'expires_at',
  'requests',
  'latest_request_id',
  'latest_request_at',
  'password',
  'email',
  'url',
  'email_address',
  'dns_name',
] as const;

export const TokenUpdateSchema = TokenCreateSchema.omit({ clone_from: true });
export type TokenUpdateBody = z.infer<typeof TokenUpdateSchema>;

const bySetting = new Map<number, { create: typeof TokenCreateSchema; update: typeof TokenUpdateSchema }>();

/**
 * The create and update bodies with `request_limit` allowed up to `maxRequestLimit` (the
 * MAX_REQUEST_LIMIT setting): what the token service validates with and /openapi.json documents.
 */
export function tokenSchemas(maxRequestLimit: number): { create: typeof TokenCreateSchema; update: typeof TokenUpdateSchema } {
  if (maxRequestLimit === DEFAULT_MAX_REQUEST_LIMIT) return { create: TokenCreateSchema, update: TokenUpdateSchema };
  let found = bySetting.get(maxRequestLimit);
  if (!found) {
    const create = TokenCreateSchema.extend({ request_limit: requestLimit(maxRequestLimit).optional() });
    found = { create, update: create.omit({ clone_from: true }) };
    bySetting.set(maxRequestLimit, found);
  }
  return found;
}

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
