import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const ProviderListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
  type: z.string().max(64).optional(),
});
