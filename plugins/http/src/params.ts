// Parameter schema pieces shared by the plugin's actions. They accept what webhook.site's API
// accepts (null for "not set", numbers as text, an empty PHP array `[]` for an empty group) and the
// text every field becomes after variable replacement.
import { type Bounds, numeric, variableName, z } from '@capture/sdk';

/** A number (JSON or text) within bounds; null, absent or `""` means "not set". */
export function optionalNumber(bounds: Bounds) {
  return z
    .union([numeric(bounds), z.literal('').transform(() => undefined)])
    .nullish()
    .transform((v) => v ?? undefined);
}

/**
 * A variable-name prefix with a default used when it is absent, null or blank. The default is the
 * schema's own (not only words in a description), so /action-types, schemas/actions/ and the page's
 * placeholder show it.
 */
export function prefix(fallback: string) {
  return z
    .string()
    .nullish()
    .default(fallback)
    .transform((v) => (v && v.trim() ? v : fallback))
    .pipe(variableName());
}

/** An object group (`auth`, `retry`), where null or an empty list `[]` (PHP's empty array) means "not set". */
export function group<S extends z.ZodObject>(shape: S) {
  return z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? undefined : v), shape.nullish()).transform((v) => v ?? undefined);
}
