// The one error hierarchy. Anything thrown as an HttpError is rendered by the error middleware as
// `{"message": "...", "errors": {...}}` with its status; anything else is a 500 and is logged.

export type FieldErrors = Record<string, string[]>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export class BadRequest extends HttpError {
  constructor(message = 'Bad request', errors?: FieldErrors) {
    super(400, message, errors);
  }
}
export class Unauthorized extends HttpError {
  constructor(message = 'Unauthorized') {
    super(401, message);
  }
}
export class Forbidden extends HttpError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}
export class NotFound extends HttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}
export class Conflict extends HttpError {
  constructor(message: string, errors?: FieldErrors) {
    super(409, message, errors);
  }
}
export class PayloadTooLarge extends HttpError {
  constructor(message = 'Payload too large') {
    super(413, message);
  }
}
export class ValidationError extends HttpError {
  constructor(message: string, errors?: FieldErrors) {
    super(422, message, errors);
  }
}
export class TooManyRequests extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}
/**
 * A write the store refused for lack of space (a full disk or quota): nothing was written. 507, not
 * 503: the service is up and reads work, and when space returns is up to whoever frees it, so there
 * is no honest Retry-After; /readyz turns 503 meanwhile for balancers (core/store/space.ts).
 */
export class InsufficientStorage extends HttpError {
  constructor(message = 'The server has no storage space left: nothing was written') {
    super(507, message);
  }
}

/**
 * A text over a parse limit (a ParseLimitError of @capture/sdk/parse-limits: 413 for size, 422 for
 * depth) as our error, its message also under `field`.
 */
export function fromParseLimit(e: { status: number; message: string }, field: string): HttpError {
  return new HttpError(e.status, e.message, { [field]: [e.message] });
}

/** Turns a zod error into our 422 with field paths. */
export function fromZod(error: { issues: Array<{ path: PropertyKey[]; message: string }> }, what = 'The given data was invalid.'): ValidationError {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.') || '_';
    (errors[key] ??= []).push(issue.message);
  }
  const first = Object.entries(errors)[0];
  const message = first ? `${first[0] === '_' ? '' : first[0] + ': '}${first[1][0]}` : what;
  return new ValidationError(message, errors);
}

/**
 * A problem with how the service was started (a setting, a port, a folder) that the person running
 * it can fix: printed as its message alone, no stack trace, and the process exits non-zero.
 */
export class StartupError extends Error {}
