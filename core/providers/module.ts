// Connected accounts as a module: the /providers API over the provider types plugins declare, and
// the account-bound PROVIDERS service actions use (registered in the server's container).
import { providersRouter } from '../http/providers/providers.router.js';
import { PROVIDERS as PROVIDERS_TOKEN } from '../sdk/index.js';
import { ACTION_TYPES, PROVIDERS, SECRETS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { ProviderService, providerTypes } from './service.js';

export function createProvidersModule(): ServiceModule {
  return {
    name: 'providers',
    provides: [PROVIDERS],
    requires: [ACTION_TYPES, SECRETS],
    async start(ctx) {
      const registry = ctx.require(ACTION_TYPES);
      const providers = new ProviderService(ctx.store, registry, ctx.require(SECRETS).sealer, ctx.clock);
      ctx.container.registerInstance(PROVIDERS_TOKEN, { forAccount: (owner) => providers.forAccount(owner.userId) });
      ctx.provide(PROVIDERS, providers);
      // Provider types come with their plugins' code (deferred loading: a flag check once all are in).
      const kinds = async () => {
        if (registry.deferred) await registry.ready();
        return providerTypes(registry);
      };
      return { routers: [providersRouter(ctx, providers, kinds)] };
    },
  };
}
