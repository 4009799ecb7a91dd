// Shared by `condition` and `conditions`: one comparison, and what the outcome does to the chain.
import { compare, type Operator, OPERATOR_LABELS, OPERATORS, UNARY_OPERATORS } from '@capture/sdk/operators';
import { type ActionContext, z } from '@capture/sdk';

export const conditionSchema = z.object({
  input: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  operator: z.enum(OPERATORS),
  value: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
});
export type Condition = z.output<typeof conditionSchema>;

/** `stop` stops when the conditions pass, `continue` stops unless they pass, `noop` only records. */
export const outcomeSchema = z.enum(['stop', 'continue', 'noop']);
export type Outcome = z.output<typeof outcomeSchema>;

/**
 * "Variable exists" must look at what was typed: after replacement a missing `$x$` and a
 * variable whose value is literally "$x$" read the same.
 */
function exists(ctx: ActionContext, rawInput: unknown, input: string): boolean {
  const raw = typeof rawInput === 'string' ? rawInput.trim() : '';
  const single = /^\$([^$]+)\$$/.exec(raw);
  if (single) return ctx.vars.has(single[1]);
  if (raw && !raw.includes('$')) return ctx.vars.has(raw);
  return input !== '' && !/\$[^\s$][^$\n]*\$/.test(input);
}

/**
 * "Is null": a variable that does not exist, or whose value is empty (a JSON null is stored
 * empty) or the word `null`.
 */
function isNull(ctx: ActionContext, rawInput: unknown, input: string): boolean {
  return !exists(ctx, rawInput, input) || compare('null', input);
}

function decide(ctx: ActionContext, c: Condition, rawInput: unknown): boolean {
  switch (c.operator) {
    case 'ex':
      return exists(ctx, rawInput, c.input);
    case 'null':
      return isNull(ctx, rawInput, c.input);
    case 'nnull':
      return !isNull(ctx, rawInput, c.input);
    default:
      return compare(c.operator as Operator, c.input, c.value);
  }
}

/** The operators that look at the variable named in the input, so the output shows what was typed. */
const BY_NAME = new Set(['ex', 'null', 'nnull']);

export function check(ctx: ActionContext, c: Condition, rawInput: unknown): boolean {
  const passed = decide(ctx, c, rawInput);
  const shown = BY_NAME.has(c.operator) ? String(rawInput ?? c.input) : JSON.stringify(c.input);
  const value = (UNARY_OPERATORS as readonly string[]).includes(c.operator) ? '' : ` ${JSON.stringify(c.value)}`;
  ctx.log(`${shown} ${OPERATOR_LABELS[c.operator]}${value}: ${passed ? 'yes' : 'no'}`);
  return passed;
}

export function settle(ctx: ActionContext, passed: boolean, outcome: Outcome): void {
  ctx.setResult(passed);
  if (outcome === 'stop' && passed) {
    ctx.log('Condition passed: stopping');
    ctx.stop();
  } else if (outcome === 'continue' && !passed) {
    ctx.log('Condition not passed: stopping');
    ctx.stop();
  } else {
    ctx.log(passed ? 'Condition passed' : 'Condition not passed');
  }
}
