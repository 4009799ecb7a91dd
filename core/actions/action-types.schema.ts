// An action type as GET /action-types lists it (registry.ts ActionTypeInfo).
import { z } from 'zod';

export const ActionTypeView = z.object({
  type: z.string(),
  title: z.string(),
  category: z.string(),
  description: z.string(),
  sets: z.array(z.string()).describe('Variables the action sets'),
  creatable: z.boolean(),
  queueable: z.boolean().describe("Whether it may be marked queued (Don't Save, Rate Limit and Modify Response only make sense inline)"),
  plugin: z.string(),
  schema: z.record(z.string(), z.unknown()).describe('JSON Schema of its parameters'),
});
