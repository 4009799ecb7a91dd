import { defineAction } from '@capture/sdk';
import { check, conditionSchema, outcomeSchema, settle } from './evaluate.js';

export const condition = defineAction({
  type: 'condition',
  title: 'Condition',
  category: 'logic',
  description: 'Compares an input with a value. `ex` (exists), `null` (is null: the variable does not exist, or is empty or `null`) and `nnull` (is not null) look at the variable named in the input. `stop` stops the chain when it passes, `continue` stops it unless it passes, `noop` only records the result for actions that reference this one.',
  parameters: conditionSchema.extend({ action: outcomeSchema }),
  execute(ctx) {
    const { params, rawParams } = ctx;
    settle(ctx, check(ctx, params, rawParams.input), params.action);
  },
});
