import { randomInt } from 'node:crypto';
import { defineAction, integer, variableName, z } from '@capture/sdk';
import { parseZone } from '@capture/sdk/time-zone';
import { DATE_FORMATS, formatDate, parseDateInput } from './dates.js';
import { calculate } from './math.js';

const ALPHABETS = {
  lowercase: 'abcdefghijklmnopqrstuvwxyz',
  uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  digits: '0123456789',
  symbols: '!@#$%^&*()-_=+[]{};:,.<>?/~',
} as const;

// The API documents these groups as `random.*.length`: accept one object or a list holding one.
const one = <T extends z.ZodType>(schema: T) =>
  z.union([
    schema,
    z
      .array(schema)
      .min(1)
      .transform((a) => a[0]),
  ]);

const randomSchema = z.object({
  length: integer({ min: 1, max: 10_000 }),
  characters: z
    .array(z.enum(['lowercase', 'uppercase', 'digits', 'symbols', 'user']))
    .min(1)
    .default(['lowercase', 'uppercase', 'digits']),
  alphabet: z.string().nullish(),
});
const dateSchema = z.object({
  input: z.string().nullish(),
  format: z.enum(DATE_FORMATS).nullish(),
  user_format: z.string().nullish(),
  timezone: z
    .string()
    .max(64)
    .nullish()
    // A zone given as text is checked when the action is saved; one from a variable when it runs.
    .refine((v) => !v?.trim() || v.includes('$') || knownZone(v), { message: 'is not a time zone (an IANA name such as Europe/Copenhagen, or an offset such as +02:00)' })
    .describe('Time zone of the output: an IANA name (Europe/Copenhagen) or an offset (+02:00); default UTC'),
});

function knownZone(name: string): boolean {
  try {
    parseZone(name);
    return true;
  } catch {
    return false;
  }
}

function randomString(r: z.output<typeof randomSchema>): string {
  const pool = [...new Set(r.characters.flatMap((c) => [...(c === 'user' ? (r.alphabet ?? '') : ALPHABETS[c])]))];
  if (!pool.length) throw new Error('No characters to pick from: give an alphabet with "user"');
  // randomInt is uniform (no modulo bias) and cryptographically strong: fine for one-time codes.
  return Array.from({ length: r.length }, () => pool[randomInt(pool.length)]).join('');
}

export const setVariable = defineAction({
  type: 'set_variable',
  title: 'Set Variable',
  category: 'logic',
  description:
    'Sets a runtime variable for the following actions (not stored). Modes: text (the value), random (a random string from character groups; digits only for a random number), date (an input date such as "now", "-30 days" or "2024-01-02" in a format, shown in an output time zone, UTC by default), math (the value is an expression: + - * / % ^, comparisons and && || ! through if(), and functions such as round, avg, max; $pi and $e).',
  parameters: z
    .object({
      name: variableName(),
      value: z
        .string()
        .nullish()
        .transform((v) => v ?? ''),
      mode: z
        .enum(['text', 'random', 'date', 'math'])
        .nullish()
        .transform((v) => v ?? 'text'),
      random: one(randomSchema).nullish(),
      date: one(dateSchema).nullish(),
    })
    .refine((p) => p.mode !== 'random' || p.random, { message: 'is required in random mode', path: ['random'] }),
  sets: ['<name>'],
  untemplated: ['name'],
  // Not async: only math mode waits (for the parser, loaded on first use), and a chain runs a
  // synchronous action without racing it against its time budget (@capture/sdk/runner).
  execute(ctx) {
    const { params } = ctx;
    const done = (value: string) => {
      ctx.vars.set(params.name, value);
      ctx.log(`Set runtime variable $${params.name}$ to ${JSON.stringify(value.length > 200 ? value.slice(0, 200) + '…' : value)}`);
    };
    switch (params.mode) {
      case 'text':
        return done(params.value);
      case 'random':
        return done(randomString(params.random!));
      case 'date': {
        const d = params.date ?? {};
        const format = d.format ?? 'iso8601';
        if (format === 'user' && !d.user_format) throw new Error('date.user_format is required with the "user" format');
        const zone = d.timezone?.trim() ? parseZone(d.timezone) : undefined;
        return done(formatDate(parseDateInput(d.input || params.value || '', ctx.services.clock.now()), format, d.user_format ?? '', zone));
      }
      case 'math':
        return calculate(params.value).then(done);
    }
  },
});
