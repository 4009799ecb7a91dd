// The error log's routes (GET /errors, GET /errors/unread, POST /errors/read): zod schemas that
// validate the input and feed /openapi.json.
import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

const account = z
  .union([z.literal('anonymous'), z.coerce.number().int().min(1)])
  .optional()
  .describe("Administrator only: one account's entries (a user ID, or `anonymous` for anonymous tokens'); default every account");

export const ErrorScopeQuery = z.object({ user_id: account });

export const ErrorListQuery = z.object({
  query: z.string().max(500).optional().describe('Text to find (any case) in the message, action type or ID, token ID or schedule name'),
  source: z.enum(['action', 'schedule']).optional().describe('Only action errors or only schedule failures'),
  unread: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('`true`: only unread entries'),
  token_id: z.string().max(100).optional().describe("Only this token's entries (its UUID)"),
  schedule_id: z.coerce.number().int().min(1).optional().describe("Only this schedule's entries"),
  user_id: account,
  per_page: perPage(),
  page: pageNumber,
});

export const MarkReadBody = z.object({
  ids: z.array(z.number().int().min(1)).max(1000).optional().describe('These entries; default every unread entry'),
  up_to: z.number().int().min(1).optional().describe('Only entries with this ID or older (the newest one the reader saw), so entries that arrived meanwhile stay unread'),
});

export const ErrorEntryView = z.object({
  id: z.number().int(),
  user_id: z.number().int().nullable(),
  source: z.enum(['action', 'schedule']),
  token_id: z.string().nullable(),
  request_id: z.string().nullable(),
  action_id: z.string().nullable(),
  action_type: z.string().nullable(),
  schedule_id: z.number().int().nullable(),
  schedule_name: z.string().nullable(),
  message: z.string(),
  read: z.boolean(),
  created_at: z.string(),
});

export const UnreadView = z.object({ unread: z.number().int() });
export const MarkReadResult = z.object({ marked: z.number().int(), unread: z.number().int() });

/** GET /errors: the page envelope of the other lists, with the unread count beside it. */
export const ErrorPageView = z.object({
  data: z.array(ErrorEntryView),
  current_page: z.number().int(),
  last_page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  from: z.number().int().nullable(),
  to: z.number().int().nullable(),
  next_page_url: z.string().nullable(),
  prev_page_url: z.string().nullable(),
  unread: z.number().int().describe('Unread entries of the same account(s), whatever the filters'),
});
