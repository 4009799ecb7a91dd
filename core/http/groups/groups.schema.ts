import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const GroupBody = z.object({ name: z.string().trim().min(1).max(255) });
/** A group as the API returns it (groupView; /openapi.json). */
export const GroupView = z.object({
  id: z.number().int(),
  team_id: z.null(),
  user_id: z.number().int(),
  name: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export const GroupListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
});
