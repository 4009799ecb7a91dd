// Providers and provider types as the Providers API shows them (service.ts makes them; core/http/providers serves them).
import { z } from 'zod';

/** A provider as the API shows it (core/providers/service.ts ProviderView): never its credentials. */
export const ProviderView = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  settings: z.record(z.string(), z.unknown()),
  credential_fields: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A provider type of a loaded plugin, with the JSON Schemas of its fields. */
export const ProviderTypeView = z.object({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  plugin: z.string(),
  generates_credentials: z.boolean(),
  credentials: z.record(z.string(), z.unknown()).describe('JSON Schema'),
  settings: z.record(z.string(), z.unknown()).describe('JSON Schema'),
});
