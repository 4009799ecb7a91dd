// The host's ActionRunner for @capture/sdk/testing: one action run as the first of a chain by the
// real registry and chain runner. The repository's vitest setup installs it (test/setup/action-runner.ts).
import type { ActionRunner } from '../sdk/runner.js';
import { ActionRegistry } from './registry.js';
import { runChain } from './runner.js';

export const hostActionRunner: ActionRunner = {
  async run(input) {
    const registry = new ActionRegistry();
    registry.addAll('test', input.definitions, input.container);
    const [action] = input.definitions;
    if (!action) throw new Error('no action to run');
    return runChain({
      token: input.token,
      request: input.request,
      rawBody: input.rawBody,
      registry,
      services: input.services,
      budgetMs: input.budgetMs,
      variables: input.variables,
      queued: input.queued,
      actions: [{ uuid: '33333333-3333-4333-8333-333333333333', type: action.type, order: input.order, parameters: input.params }],
    });
  },
};
