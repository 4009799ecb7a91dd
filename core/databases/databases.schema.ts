// Hosted databases and query answers as the Databases API shows them (service.ts makes them; core/http/databases serves them).
import { z } from 'zod';

/** A hosted database as the API shows it (core/databases/service.ts DatabaseView). */
export const DatabaseView = z.object({
  id: z.string(),
  name: z.string(),
  bytes_used: z.number().nullable().describe("Bytes of the database's tables with their indexes (null when the server could not be asked)"),
  tables_used: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** What the query endpoint answers (core/databases/service.ts QueryAnswer). */
export const QueryAnswerView = z.object({
  result: z.array(z.record(z.string(), z.unknown())).nullable(),
  error: z.string().nullable(),
  time: z.number().describe('milliseconds'),
});
