// Query strings of the Schedules API (the bodies and views are core/scheduler/schedule.schema.ts).
import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const ScheduleListQuery = z.object({
  per_page: perPage(),
  page: pageNumber,
  group_id: z.coerce.number().int().min(1).optional().describe('Only schedules in this group'),
});

export const ScheduleLogsQuery = z.object({
  sorting: z.enum(['newest', 'oldest']).default('oldest'),
  per_page: perPage(),
  page: pageNumber,
});

export const DocumentQuery = z.object({ format: z.enum(['yaml', 'json']).default('yaml') });
