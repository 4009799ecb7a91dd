// Hosted databases as a module (off without DATABASES_POSTGRES_URL): the /databases API and the
// account-bound DATABASES service of actions (registered in the server's container).
import { databasesRouter } from '../http/databases/databases.router.js';
import { DATABASES as DATABASES_TOKEN } from '../sdk/index.js';
import { DATABASES, SECRETS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { DatabaseService } from './service.js';

export function createDatabasesModule(): ServiceModule {
  return {
    name: 'databases',
    provides: [DATABASES],
    requires: [SECRETS],
    async start(ctx) {
      const { config, logger } = ctx;
      // The databases' roles' passwords derive from the secret key.
      const databases = new DatabaseService(ctx.store, ctx.clock, {
        url: config.DATABASES_POSTGRES_URL,
        secretKey: ctx.require(SECRETS).key,
        statementTimeoutMs: config.DATABASES_STATEMENT_TIMEOUT_MS,
        logger,
      });
      ctx.container.registerInstance(DATABASES_TOKEN, { forAccount: (owner) => databases.forAccount(owner.userId) });
      ctx.provide(DATABASES, databases);
      return {
        routers: [databasesRouter(ctx, databases)],
        stop: () => databases.close(),
      };
    },
  };
}
