import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const GroupListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
});
