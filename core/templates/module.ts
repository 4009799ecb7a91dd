// Action templates as a module: the /templates API, the service the action runtime expands
// `template` steps with, and the account-bound TEMPLATES service of the SDK.
import { templatesRouter } from '../http/templates/templates.router.js';
import { TEMPLATES as TEMPLATES_TOKEN } from '../sdk/index.js';
import { ACTION_TYPES, SECRETS, TEMPLATES, WORKFLOWS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { TemplateService } from './service.js';

export function createTemplatesModule(): ServiceModule {
  return {
    name: 'templates',
    provides: [TEMPLATES],
    requires: [ACTION_TYPES, SECRETS, WORKFLOWS],
    async start(ctx) {
      const templates = new TemplateService(ctx.store, ctx.require(ACTION_TYPES), ctx.clock, ctx.require(SECRETS).parameters);
      const workflows = ctx.require(WORKFLOWS);
      // The account-bound TEMPLATES service actions read through ctx.services (in the server's container).
      ctx.container.registerInstance(TEMPLATES_TOKEN, { forAccount: (owner) => templates.forAccount(owner.userId) });
      ctx.provide(TEMPLATES, templates);
      return { routers: [templatesRouter(ctx, templates, (token) => workflows.steps(token))] };
    },
  };
}
