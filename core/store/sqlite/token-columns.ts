// The tokens table's columns that hold a token's record, one list for the token repository
// (repos/tokens.ts), the store copy (transfer.ts) and the tests: a new token field is a line here
// plus a migration (docs/storage.md), and fromTokenValues in repos/tokens.ts. Not request_count and
// latest_request_*: the requests' catch-up keeps those.
import type { TokenRecord } from '../types.js';

/** In the order of a record read back (fromTokenValues), redaction last: it is left out without rules. */
export const TOKEN_COLUMNS = [
  'uuid',
  'user_id',
  'alias',
  'redirect',
  'actions',
  'cors',
  'expiry',
  'timeout',
  'listen',
  'premium',
  'premium_expires_at',
  'ip',
  'user_agent',
  'default_content',
  'default_status',
  'default_content_type',
  'request_limit',
  'description',
  'group_id',
  'password_hash',
  'created_at',
  'updated_at',
  'expires_at',
  'team_id',
  'redaction',
] as const satisfies ReadonlyArray<keyof TokenRecord>;

export type TokenColumn = (typeof TOKEN_COLUMNS)[number];

/** Stored as 0 or 1. */
export const TOKEN_BOOLEAN_COLUMNS = ['redirect', 'actions', 'cors', 'premium'] as const satisfies readonly TokenColumn[];

/** Stored as JSON text (NULL for null): expiry is an integer, a boolean (legacy) or null; redaction its rules. */
export const TOKEN_JSON_COLUMNS = ['expiry', 'redaction'] as const satisfies readonly TokenColumn[];

// Every field of a token record has its column: a field added to TokenRecord without one fails here.
type Unstored = Exclude<keyof TokenRecord, TokenColumn>;
const everyFieldStored: [Unstored] extends [never] ? true : Unstored = true;
void everyFieldStored;
