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
