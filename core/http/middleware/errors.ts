// The Koa middleware that turns whatever a route throws into its answer (core/error-response.ts renders it).
import type { Context, Next } from 'koa';
import { renderError } from '../../error-response.js';
import type { Logger } from '../../logger.js';

export function errorHandler(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      const r = renderError(err, logger);
      ctx.status = r.status;
      ctx.set(r.headers);
      ctx.body = r.body;
    }
  };
}
