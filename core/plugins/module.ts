// The action types as a module: registers core's SDK services in the server's container, loads the
// plugins (each in a child container of it), adds core's own action types, and opens the secret
// key that seals provider credentials and secret action parameters. Plugins whose manifests list
// their types are not imported before listening (deferred): every reader that needs a plugin's
// code awaits registry.ready(types), and all are imported in the background once the server listens.
import { createSealer, loadSecretKey } from '../auth/sealing.js';
import { ACTION_TYPES, SECRETS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { CORE_ACTIONS } from '../actions/builtin.js';
import { loadPlugins } from '../actions/loader.js';
import { ParameterSecrets } from '../actions/secret-params.js';
import { registerCoreServices } from '../actions/services.js';

export function createPluginsModule(): ServiceModule {
  return {
    name: 'plugins',
    provides: [ACTION_TYPES, SECRETS],
    async start(ctx) {
      const { config, store, clock, logger, container } = ctx;
      registerCoreServices(container, { config, store, clock, logger });
      // The loader reports each plugin that fails to load, once (a deferred one when it is imported).
      const { registry } = await loadPlugins({ packages: config.PLUGINS, container, logger, defer: true });
      // Including templates needs the store, so these are core's own rather than a plugin's.
      registry.addAll('core', CORE_ACTIONS, container);
      const key = loadSecretKey(config);
      // One key seals provider credentials and secret action parameters; SECRET_KEY_PREVIOUS keys
      // still open what they sealed until `npm run cli -- secrets rotate` re-seals it.
      const sealer = createSealer(key, config.SECRET_KEY_PREVIOUS);
      if (store.kind === 'mongo' && !config.SECRET_KEY) {
        logger.warn('SECRET_KEY is not set: provider credentials are sealed with the key file in DATA_DIR; every instance sharing this database must use the same key (set SECRET_KEY)');
      }
      ctx.provide(ACTION_TYPES, registry);
      ctx.provide(SECRETS, { key, sealer, parameters: new ParameterSecrets(registry, sealer) });
      return {
        listening() {
          // Right after listening, so the first chain rarely waits; failures are logged by the loader.
          void registry.ready();
        },
        // A service stopped while plugins are still being imported waits for those imports to settle,
        // so none runs on after close (in a test worker that goes on to the next file, a late import
        // would fail against a torn-down module loader, and every later import of it would fail too).
        async stop() {
          await registry.ready();
        },
      };
    },
  };
}
