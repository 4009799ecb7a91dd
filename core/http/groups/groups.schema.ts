import { z } from 'zod';

export const GroupBody = z.object({ name: z.string().trim().min(1).max(255) });
export const GroupListQuery = z.object({
  per_page: z.coerce.number().int().min(1).max(100).default(50),
  page: z.coerce.number().int().min(1).default(1),
});
