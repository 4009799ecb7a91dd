// A token's action as the actions API shows it (service.ts actionView makes it; ActionBody, the
// body it is written with, is in service.ts).
import { z } from 'zod';

export const ActionView = z.object({
  uuid: z.string(),
  token_id: z.string(),
  type: z.string(),
  order: z.number().int(),
  name: z.string().nullable(),
  disabled: z.boolean(),
  condition: z.string().nullable().describe('The uuid of the action whose result decides whether this one runs'),
  condition_action: z.enum(['true', 'false']).nullable(),
  queue: z.boolean(),
  delay: z.number().int(),
  queue_profile: z.string().nullable().describe('The Queue Profile the queued action runs in'),
  parameters: z.record(z.string(), z.unknown()).describe('Secret parameters show as the marker'),
});
