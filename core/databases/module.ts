// Hosted databases as a module (off without DATABASES_POSTGRES_URL): the /databases API and the
// database service, which plugins see as the SDK's DATABASES (core/sdk-bridge.ts).
import { databasesRouter } from '../http/databases/databases.router.js';
import { DATABASE_SERVICE, SECRETS } from '../service-keys.js';
import type { ServiceModule } from '../service-module.js';
import { DatabaseService } from './service.js';

export function createDatabasesModule(): ServiceModule {
  return {
    name: 'databases',
    provides: [DATABASE_SERVICE],
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
      ctx.provide(DATABASE_SERVICE, databases);
      return {
        routers: [databasesRouter(ctx, databases)],
        stop: () => databases.close(),
      };
    },
  };
}
