// The error log as its API shows it (service.ts makes the entries; core/http/errors serves them).
import { z } from 'zod';

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
