// Share links of a token (share.ts): what the share routes answer (core/http/tokens/share.router.ts).
import { z } from 'zod';

export const ShareCreated = z.object({
  url: z.string().describe("The page's view-only address of the token: shown only now, the service keeps only a hash of its secret"),
  secret: z.string().describe('The share secret (`Share-Key` header or `?share=` on the read-only request routes)'),
  created_at: z.string(),
});

export const ShareStatusView = z.object({
  active: z.boolean().describe('Whether the token has a share link'),
  created_at: z.string().nullable(),
});
