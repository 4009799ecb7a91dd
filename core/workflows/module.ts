// Tokens' action chains as a module: the workflow service (steps of a token, validated against the
// action types), copied with a cloned token, and the token workflow documents in workflows/.
import { ACTION_TYPES, SECRETS, WORKFLOWS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { applyWorkflowDir } from './apply-dir.js';
import { WorkflowService } from './service.js';

export function createWorkflowsModule(): ServiceModule {
  return {
    name: 'workflows',
    provides: [WORKFLOWS],
    requires: [ACTION_TYPES, SECRETS],
    async start(ctx) {
      const workflows = new WorkflowService(ctx.store, ctx.require(ACTION_TYPES), ctx.clock, ctx.require(SECRETS).parameters);
      ctx.tokens.cloneHooks.push((from, to) => workflows.copy(from, to));
      ctx.provide(WORKFLOWS, workflows);
      await applyWorkflowDir(ctx, workflows);
      return {};
    },
  };
}
