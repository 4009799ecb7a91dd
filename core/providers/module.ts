// Connected accounts as a module: the /providers API over the provider types plugins declare, and
// the provider service, which plugins see as the SDK's PROVIDERS (core/sdk-bridge.ts).
import { providersRouter } from '../http/providers/providers.router.js';
import { ACTION_TYPES, PROVIDER_SERVICE, SECRETS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { ProviderService, providerTypes } from './service.js';

export function createProvidersModule(): ServiceModule {
  return {
    name: 'providers',
    provides: [PROVIDER_SERVICE],
    requires: [ACTION_TYPES, SECRETS],
    async start(ctx) {
      const registry = ctx.require(ACTION_TYPES);
      const providers = new ProviderService(ctx.store, registry, ctx.require(SECRETS).sealer, ctx.clock);
      ctx.provide(PROVIDER_SERVICE, providers);
      // Provider types come with their plugins' code (deferred loading: a flag check once all are in).
      const kinds = async () => {
        if (registry.deferred) await registry.ready();
        return providerTypes(registry);
      };
      return { routers: [providersRouter(ctx, providers, kinds)] };
    },
  };
}
