import { defineAction, z } from '@capture/sdk';
import { check, conditionSchema, outcomeSchema, settle } from './evaluate.js';

export const conditions = defineAction({
  type: 'conditions',
  title: 'Conditions',
  category: 'logic',
  description:
    'Checks several conditions: it passes when **all** pass (`all`), when **at least one** does (`one`) or when **none** does (`none`). Then it stops, continues or records the result for later steps, as Condition does.',
  parameters: z.object({
    conditions: z.array(conditionSchema).min(1),
    mode: z.enum(['one', 'all', 'none']),
    action: outcomeSchema,
  }),
  execute(ctx) {
    const { params, rawParams } = ctx;
    const raw = Array.isArray(rawParams.conditions) ? (rawParams.conditions as Array<{ input?: unknown }>) : [];
    // Every condition is checked (no short-circuit) so the output shows each one.
    const results = params.conditions.map((c, i) => check(ctx, c, raw[i]?.input));
    const passed = params.mode === 'all' ? results.every(Boolean) : params.mode === 'one' ? results.some(Boolean) : !results.some(Boolean);
    settle(ctx, passed, params.action);
  },
});
