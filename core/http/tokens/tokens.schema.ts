// The token list's query string (the token bodies and view are core/tokens/tokens.schema.ts).
import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const TokenListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
  order_by: z.enum(['created_at', 'token_id']).default('created_at'),
  order_direction: z.enum(['asc', 'desc']).default('asc'),
  query: z.string().trim().max(200).optional().describe('Only tokens whose ID or alias contains this text (ignoring case)'),
  group_id: z.coerce.number().int().min(1).optional().describe('Only tokens in this group'),
});
