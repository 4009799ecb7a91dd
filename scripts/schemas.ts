// The JSON Schemas kept in schemas/, derived from the zod schemas the API validates with.
import { z } from 'zod';
import { RequestView } from '../core/capture/request-view.js';
import { TokenView } from '../core/tokens/tokens.schema.js';
import { TokenCreateSchema } from '../core/tokens/tokens.schema.js';
import { scheduleJsonSchema } from '../core/scheduler/document.js';
import { workflowJsonSchema } from '../core/workflows/document.js';

const json = (id: string, title: string, s: z.ZodType, io: 'input' | 'output' = 'output') => ({
  $id: `https://capture.local/schemas/${id}`,
  title,
  ...z.toJSONSchema(s, { io, unrepresentable: 'any' }),
});

export function coreSchemas(): Record<string, unknown> {
  return {
    'token.schema.json': json('token.schema.json', 'Token', TokenView),
    'token-create.schema.json': json('token-create.schema.json', 'Token create body', TokenCreateSchema, 'input'),
    'request.schema.json': json('request.schema.json', 'Captured request', RequestView),
    'workflow.schema.json': workflowJsonSchema(),
    'schedule.schema.json': scheduleJsonSchema(),
  };
}
