// The rules of redaction as the `redact` action and a token's `redaction` setting write them: their
// schemas, the default mask text, and rules compiled to run (what an action's run returns, so the
// chain runner compiles them). The engine that applies them to a request lives in the host
// (core/shared/redaction.ts).
import { JSONPath } from 'jsonpath-plus';
import { z } from 'zod';
import { regexReplace } from './regex.js';

export const DEFAULT_REPLACEMENT = '[REDACTED]';
export const MAX_REDACTION_RULES = 50;
export const REDACTION_PRESETS = ['bearer', 'card', 'email'] as const;
export type RedactionPreset = (typeof REDACTION_PRESETS)[number];

const replacement = z.string().max(200).optional().describe("Mask text for this rule (default: the settings' replacement)");
const fieldName = z.string().min(1).max(200);

/** A JSONPath the masking can use: starts at `$`, balanced, selects inside the document. */
export function jsonPathProblem(path: string): string | null {
  if (!path.startsWith('$')) return 'must start with $ (e.g. $.password or $..token)';
  if (path.trim() === '$') return 'must select a field inside the document, not the whole document';
  if (/(\.|\[)$/.test(path) || path.endsWith('..')) return 'is incomplete';
  let depth = 0;
  let quote: string | null = null;
  for (const ch of path) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') {
      if (--depth < 0) return 'has an unmatched ] or )';
    }
  }
  if (quote) return 'has an unclosed quote';
  if (depth !== 0) return 'has an unclosed [ or (';
  try {
    JSONPath({ path, json: { a: { b: [1, 'x', { c: null }] } }, eval: 'safe', wrap: true });
  } catch (e) {
    return `cannot be evaluated: ${(e as Error).message}`;
  }
  return null;
}

function ruleSchemas<O extends z.ZodRawShape>(options: O) {
  return z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('header'), name: fieldName.describe('Header name, any case'), replacement, ...options }).strict(),
    z.object({ kind: z.literal('query'), name: fieldName.describe('Query string parameter name'), replacement, ...options }).strict(),
    z.object({ kind: z.literal('form'), name: fieldName.describe('Form field name (urlencoded or multipart)'), replacement, ...options }).strict(),
    z
      .object({
        kind: z.literal('json'),
        path: z
          .string()
          .min(1)
          .max(500)
          .superRefine((p, ctx) => {
            const problem = jsonPathProblem(p);
            if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `Invalid JSONPath: ${problem}` });
          })
          .describe('JSONPath into a JSON body, e.g. $.card.number or $..password'),
        replacement,
        ...options,
      })
      .strict(),
    z
      .object({
        kind: z.literal('regex'),
        pattern: z.string().min(1).max(1000).describe('JavaScript regular expression; every match is masked'),
        flags: z
          .string()
          .regex(/^(?!.*(.).*\1)[imsu]*$/, 'may hold i, m, s and u, each once')
          .default('')
          .describe('Regular expression flags (i, m, s, u); g is implied'),
        replacement,
        ...options,
      })
      .strict()
      .superRefine((r, ctx) => {
        const { pattern, flags } = r as { pattern: string; flags: string };
        try {
          new RegExp(pattern, flags);
        } catch (e) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['pattern'], message: `Invalid regular expression: ${(e as Error).message}` });
        }
      }),
    z
      .object({
        kind: z.literal('preset'),
        preset: z.enum(REDACTION_PRESETS).describe('bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses'),
        replacement,
        ...options,
      })
      .strict(),
  ]);
}

/** A rule as a token's `redaction` setting holds it. */
export const RedactionRuleSchema = ruleSchemas({
  actions_see_original: z.boolean().default(true).describe('Custom Actions see the original value during the run (false: they see it masked too)'),
});
export type RedactionRule = z.output<typeof RedactionRuleSchema>;

/** A rule as the `redact` action takes it: it always applies when the request is stored. */
export const ActionRedactionRuleSchema = ruleSchemas({});
export type ActionRedactionRule = z.output<typeof ActionRedactionRuleSchema>;

/** A rule ready to run, with where it came from. */
export interface CompiledRule {
  rule: RedactionRule | ActionRedactionRule;
  replacement: string;
  source: 'token' | 'action';
  index: number;
  action?: string;
  /** For regex and preset rules; `timeoutMs` bounds a user pattern's run on this text. */
  text?: (s: string, count: (n: number) => void, timeoutMs: number) => string;
}

// ---------------------------------------------------------------- presets

/** The Luhn checksum of a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

const BEARER = /\b(Bearer)([ \t]+)([A-Za-z0-9\-._~+/]+=*)/gi;
// 13 to 19 digits, optionally grouped by single spaces or dashes, standing on their own: not part
// of a longer number or word, nor a run of a UUID's dash-joined digits (a token's URL holds one).
const CARD = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g;
// `%40` too: an address percent-encoded inside a URL or a body (the local part already takes `%` and `+`).
const EMAIL = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

function presetText(preset: RedactionPreset, replacementText: string): CompiledRule['text'] {
  switch (preset) {
    case 'bearer':
      return (s, count) =>
        s.replace(BEARER, (_m, word: string, space: string) => {
          count(1);
          return `${word}${space}${replacementText}`;
        });
    case 'card':
      return (s, count) =>
        s.replace(CARD, (m) => {
          if (!luhnValid(m.replace(/[ -]/g, ''))) return m;
          count(1);
          return replacementText;
        });
    case 'email':
      return (s, count) =>
        s.replace(EMAIL, () => {
          count(1);
          return replacementText;
        });
  }
}

function regexText(pattern: string, flags: string, replacementText: string): CompiledRule['text'] {
  const re = new RegExp(pattern, flags + 'g');
  return (s, count, timeoutMs) => {
    if (!s) return s;
    re.lastIndex = 0;
    // User patterns run on the regex watchdog (a backtracking pattern must not stall captures).
    // The replacement is literal text; empty matches (`x*`, lookarounds) mask nothing.
    return regexReplace(
      re,
      s,
      (m: string) => {
        if (m === '') return m;
        count(1);
        return replacementText;
      },
      timeoutMs,
    );
  };
}

/** Compiles rules (already validated by the schemas above). */
export function compileRules(rules: ReadonlyArray<RedactionRule | ActionRedactionRule>, defaultReplacement: string = DEFAULT_REPLACEMENT, source: 'token' | 'action' = 'token', action?: string): CompiledRule[] {
  return rules.map((rule, index) => {
    const text = rule.replacement ?? defaultReplacement;
    const compiled: CompiledRule = { rule, replacement: text, source, index, ...(action ? { action } : {}) };
    if (rule.kind === 'regex') compiled.text = regexText(rule.pattern, rule.flags, text);
    else if (rule.kind === 'preset') compiled.text = presetText(rule.preset, text);
    return compiled;
  });
}

/** Token settings compiled once per settings object (the token cache keeps the object). */
