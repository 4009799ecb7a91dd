// Bodies of the actions routes that are not an action itself (ActionBody lives with the workflows).
import { z } from 'zod';

/** POST /token/{id}/workflow/test: run the first steps of a (possibly unsaved) document on a stored request. */
export const WorkflowTestBody = z.object({
  document: z.record(z.string(), z.unknown()).optional().describe('A workflow document as JSON; default the stored one'),
  until: z.number().int().min(0).max(99).optional().describe('Index (from 0) of the last step to run; default all'),
  request_id: z.string().min(1).max(64).optional().describe('Stored request to run on; default the latest (a sample when there is none)'),
});
