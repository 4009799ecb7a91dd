// Parameter schema helpers. Parameters arrive as JSON from the API and again after `$variable$`
// replacement, when every value is text: these accept both forms and keep a plain JSON Schema.
import { z } from 'zod';

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

export interface Bounds {
  min?: number;
  max?: number;
  /** Message when out of bounds; default zod's. */
  message?: string;
}

function bounded(n: z.ZodNumber, b: Bounds): z.ZodNumber {
  let out = n;
  if (b.min !== undefined) out = out.min(b.min, b.message);
  if (b.max !== undefined) out = out.max(b.max, b.message);
  return out;
}

/** A number given as a JSON number or as text ("1.5"), optionally within bounds. */
export function numeric(bounds: Bounds = {}) {
  const n = () => bounded(z.number(), bounds);
  return z.union([n(), z.string().trim().regex(NUMBER, 'must be a number').transform(Number).pipe(n())]);
}

/** An integer given as a JSON number or as text ("60"), optionally within bounds. */
export function integer(bounds: Bounds = {}) {
  const n = () => bounded(z.number().int(), bounds);
  return z.union([n(), z.string().trim().regex(INTEGER, 'must be an integer').transform(Number).pipe(n())]);
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off', ''];

/** A boolean given as JSON or as text ("true", "1", "on"...). */
export function boolean() {
  return z.union([
    z.boolean(),
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((v) => TRUE.includes(v) || FALSE.includes(v), 'must be true or false')
      .transform((v) => TRUE.includes(v)),
  ]);
}

/** A variable name; `$name$` as typed in the editor is accepted and unwrapped. */
export function variableName() {
  return z
    .string()
    .trim()
    .transform((v) => v.replace(/^\$(.*)\$$/, '$1'))
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .max(200)
        .regex(/^[^$\s]/, 'must not start with a space or $'),
    );
}

/** An optional text field where `null` (as the API allows) means "not set". */
export function optionalText() {
  return z
    .string()
    .nullish()
    .transform((v) => v ?? undefined);
}

/**
 * Marks a parameter as a secret (a password, an API secret, a URL that is itself a credential):
 * stored sealed, shown by the API and in exports as "********", handed to the action in plain.
 * A URL with credentials in it is sealed whole: picking the password out would fail on URLs that
 * hold `$variables$` and would leave tokens kept in the path (webhook URLs) readable. The mark is
 * JSON Schema's `writeOnly`, which the runtime reads from the action's derived schema.
 */
export function secret<S extends z.ZodType>(schema: S): S {
  return schema.meta({ writeOnly: true });
}

/**
 * The `provider_id` parameter of an action that uses a connected account: text or an integer
 * (webhook.site's ids are numbers), kept as trimmed text.
 */
export function providerId() {
  return z
    .union([z.string().trim().min(1, 'is required'), z.number().int()])
    .transform((v) => String(v))
    .describe('The id of a connected account (Providers API)');
}

/** What a choice reads: null, absent and blank text are "not set" (undefined); text is trimmed and cased. */
const choiceText = (upper: boolean | undefined) => (v: unknown) => {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'string') return v;
  const t = v.trim();
  return t ? (upper ? t.toUpperCase() : t.toLowerCase()) : undefined;
};
const optionalChoice = <const T extends readonly [string, ...string[]]>(values: T, upper?: boolean) => z.preprocess(choiceText(upper), z.enum(values).nullish());
const defaultChoice = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number], upper?: boolean) => z.preprocess(choiceText(upper), z.enum(values).default(fallback as never));

/**
 * One of `values`, case-insensitively (written in lower case, or upper case with `upper`: HTTP
 * methods). Null, absent or blank means "not set": undefined, or `default` when given.
 */
export function choice<const T extends readonly [string, ...string[]]>(values: T, opts?: { upper?: boolean }): ReturnType<typeof optionalChoice<T>>;
export function choice<const T extends readonly [string, ...string[]]>(values: T, opts: { default: T[number]; upper?: boolean }): ReturnType<typeof defaultChoice<T>>;
export function choice<const T extends readonly [string, ...string[]]>(values: T, opts: { default?: T[number]; upper?: boolean } = {}) {
  return opts.default === undefined ? optionalChoice(values, opts.upper) : defaultChoice(values, opts.default, opts.upper);
}

/** A TCP port (number or text, 1-65535); null, absent or `""` means "not set" (the action's default port). */
export function optionalPort() {
  return z.union([integer({ min: 1, max: 65535, message: 'must be a port number (1-65535)' }), z.literal('').transform(() => undefined)]).nullish();
}
