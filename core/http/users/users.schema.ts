// Query strings of the users routes (the users' bodies and views are core/auth/users.schema.ts).
import { z } from 'zod';
import { pageNumber, perPage } from '../paging.js';

export const UserListQuery = z.object({
  page: pageNumber,
  per_page: perPage(15),
  team_id: z.coerce.number().int().positive().optional().describe('Administrator key only: one team'),
});

export const UserDeleteQuery = z.object({
  tokens: z.enum(['team', 'delete']).default('team').describe("The user's tokens: `team` gives them to a remaining member, `delete` deletes them with their requests"),
});
