// Bodies, queries and answers of the actions routes that are not an action itself (ActionBody and
// ActionView live with the workflows).
import { z } from 'zod';

/** POST /token/{id}/workflow/test: run the first steps of a (possibly unsaved) document on a stored request. */
export const WorkflowTestBody = z.object({
  document: z.record(z.string(), z.unknown()).optional().describe('A workflow document as JSON; default the stored one'),
  until: z.number().int().min(0).max(99).optional().describe('Index (from 0) of the last step to run; default all'),
  request_id: z.string().min(1).max(64).optional().describe('Stored request to run on; default the latest (a sample when there is none)'),
});

/** GET /token/{id}/workflow: YAML unless JSON is asked for (anything else is the Accept header's call). */
export const WorkflowFormatQuery = z.object({ format: z.enum(['yaml', 'json']).optional().catch(undefined) });

export const TestActionQuery = z.object({
  request_id: z.string().optional().describe('Stored request to run on; default a sample POST'),
  action_id: z.string().optional().describe("An action of the token to run with these parameters (its secrets kept); default a new one after the token's inline actions"),
});

export const ExecuteQuery = z.object({
  error_notifications: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1')
    .describe('E-mail the token owner about action errors (through SMTP_RELAY_URL, at most 10 e-mails per account an hour)'),
});

/** What a test run (test-action, workflow/test, execute) answers; execute stores its output on the request. */
export const TestRunResult = z.object({
  success: z.boolean(),
  result: z.object({
    output: z.record(z.string(), z.array(z.string())).describe('Output lines by action uuid'),
    errors: z.array(z.object({ action: z.string(), message: z.string() })),
    response: z.object({
      content: z.string().nullable(),
      status: z.number().int().nullable(),
      headers: z.record(z.string(), z.string()).nullable(),
    }),
    dont_save: z.boolean(),
    stopped: z.boolean(),
    variables: z.record(z.string(), z.string()),
    steps: z
      .array(z.object({ action: z.string(), type: z.string(), order: z.number().int(), variables: z.record(z.string(), z.string()) }))
      .optional()
      .describe('workflow/test: the variables after each step'),
  }),
});
