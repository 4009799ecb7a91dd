// A template as the Templates API shows it (service.ts makes it; core/http/templates serves it).
import { z } from 'zod';

/** A template as the API shows it (service.ts TemplateView). */
export const TemplateView = z.object({
  id: z.number().int(),
  name: z.string(),
  variables: z.array(z.object({ name: z.string(), value: z.string() })),
  team_id: z.null(),
  user_id: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  actions: z.array(z.record(z.string(), z.unknown())),
});
