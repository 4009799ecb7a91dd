// The error log as a service module: the recorder (service.ts) shared for the actions and scheduler
// modules, which start after it and record into it; stopped after them, writing what is buffered.
// The API (GET /errors...) is core's own (core/http/errors/), reading the store.
import type { ServiceModule } from '../modules.js';
import { ErrorLog } from './service.js';

/** The key under which the recorder is put in ModuleContext.shared. */
export const ERROR_LOG_KEY = 'errorLog';

/** The recorder, when the error log module runs. */
export function errorLogOf(shared: Map<string, unknown>): ErrorLog | undefined {
  const log = shared.get(ERROR_LOG_KEY);
  return log instanceof ErrorLog ? log : undefined;
}

export function createErrorLogModule(): ServiceModule {
  return {
    name: 'errorlog',
    async start(ctx) {
      const log = new ErrorLog(ctx.store, ctx.clock, ctx.logger.child({ module: 'errorlog' }), { keep: ctx.config.ERROR_LOG_KEEP });
      ctx.shared.set(ERROR_LOG_KEY, log);
      return {
        async stop() {
          await log.flush();
          ctx.shared.delete(ERROR_LOG_KEY);
        },
      };
    },
  };
}
