import { defineAction } from '@capture/sdk';
import { check, conditionSchema, outcomeSchema, settle } from './evaluate.js';

export const condition = defineAction({
  type: 'condition',
  title: 'Condition',
  category: 'logic',
  description: 'Compares an input with a value, then: **Stop if it passes** (`stop`), **Continue only if it passes** (`continue`: otherwise the chain stops), or **Use the result** (`noop`) in later steps set to run only when it passed or did not.',
  parameters: conditionSchema.extend({ action: outcomeSchema }),
  execute(ctx) {
    const { params, rawParams } = ctx;
    settle(ctx, check(ctx, params, rawParams.input), params.action);
  },
});
