import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const GroupBody = z.object({ name: z.string().trim().min(1).max(255) });
export const GroupListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
});
