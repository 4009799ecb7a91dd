// The one rule for paged lists: `per_page` is 1..100 (the documented maximum) and `page` from 1.
// A value outside answers 422 on every list, never a silent clamp, so a client learns its mistake.
import { z } from 'zod';

export const MAX_PER_PAGE = 100;

/** `per_page` with a list's default page size. */
export function perPage(defaultSize = 50) {
  return z.coerce.number().int().min(1).max(MAX_PER_PAGE, `may be at most ${MAX_PER_PAGE}`).default(defaultSize).describe(`Items per page, 1 to ${MAX_PER_PAGE} (default ${defaultSize}); more answers 422`);
}

export const pageNumber = z.coerce.number().int().min(1).default(1).describe('Page number, from 1');
