import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const DatabaseListQuery = z.object({
  per_page: perPage(15),
  page: pageNumber,
});
