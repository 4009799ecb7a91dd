import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const DatabaseListQuery = z.object({
  per_page: perPage(15),
  page: pageNumber,
});

/** A page of a table's rows (core/databases/tables.ts browse). */
export const RowsQuery = z.object({
  page: pageNumber,
  per_page: perPage(25),
  sort: z.string().max(200).optional().describe('Column to sort by (default: the primary key)'),
  order: z.enum(['asc', 'desc']).default('asc'),
  filter_column: z.string().max(200).optional().describe('Only rows whose column equals filter_value'),
  filter_value: z.string().max(10_000).optional(),
});
