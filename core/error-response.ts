// How an error becomes an answer: `{"message": "...", "errors": {...}}` with its status. Shared by
// the API's error middleware (core/http/middleware/errors.ts) and the capture path, which answers
// without Koa; it sits next to the error hierarchy (core/errors.ts) so neither imports core/http.
import { HttpError } from './errors.js';
import type { Logger } from './logger.js';

export function renderError(err: unknown, logger: Logger): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  if (err instanceof HttpError) {
    const body: Record<string, unknown> = { message: err.message };
    if (err.errors) body.errors = err.errors;
    return { status: err.status, body, headers: err.headers ?? {} };
  }
  // Errors thrown by Koa helpers (ctx.throw, body parsers) carry an `expose`d 4xx status.
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return { status: e.status, body: { message: e.expose && e.message ? e.message : 'Bad request' }, headers: {} };
  }
  logger.error('unhandled error', { err });
  return { status: 500, body: { message: 'Internal server error' }, headers: {} };
}
