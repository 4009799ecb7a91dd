// Action templates as a module: the /templates API, the service the action runtime expands
// `template` steps with, which plugins see as the SDK's TEMPLATES (core/sdk-bridge.ts).
import { templatesRouter } from '../http/templates/templates.router.js';
import { ACTION_TYPES, SECRETS, TEMPLATE_SERVICE, WORKFLOWS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { TemplateService } from './service.js';

export function createTemplatesModule(): ServiceModule {
  return {
    name: 'templates',
    provides: [TEMPLATE_SERVICE],
    requires: [ACTION_TYPES, SECRETS, WORKFLOWS],
    async start(ctx) {
      const templates = new TemplateService(ctx.store, ctx.require(ACTION_TYPES), ctx.clock, ctx.require(SECRETS).parameters);
      const workflows = ctx.require(WORKFLOWS);
      ctx.provide(TEMPLATE_SERVICE, templates);
      return { routers: [templatesRouter(ctx, templates, (token) => workflows.steps(token))] };
    },
  };
}
