// A group of tokens: the body it is created or renamed with and how the Groups API shows it (core/http/groups serves it).
import { z } from 'zod';

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
