// The error log as a service module: the recorder (service.ts) provided as ERROR_LOG for the actions
// and scheduler modules, which start after it and record into it; stopped after them, writing what
// is buffered.
// The API (GET /errors...) is core's own (core/http/errors/), reading the store.
import type { ServiceModule } from '../service-module.js';
import { ERROR_LOG } from '../service-keys.js';
import { ErrorLog } from './service.js';

export function createErrorLogModule(): ServiceModule {
  return {
    name: 'errorlog',
    provides: [ERROR_LOG],
    async start(ctx) {
      const log = new ErrorLog(ctx.store, ctx.clock, ctx.logger.child({ module: 'errorlog' }), { keep: ctx.config.ERROR_LOG_KEEP });
      ctx.provide(ERROR_LOG, log);
      return {
        async stop() {
          await log.flush();
        },
      };
    },
  };
}
