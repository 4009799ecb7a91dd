// JSON bodies of API routes: read with a size limit, parsed, 400 when malformed, 422 when not an
// object or nested deeper than the parse limit (every API body is an object; workflow documents may
// instead be YAML text, which the workflow kernel measures before it parses).
import type { Context, Next } from 'koa';
import { BadRequest, PayloadTooLarge, ValidationError, fromParseLimit } from '../../errors.js';
import { checkParseLimits, ParseLimitError } from '@capture/sdk/parse-limits';

export async function readBody(req: NodeJS.ReadableStream & { headers?: Record<string, unknown> }, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLarge(`Body larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

export function jsonBody(limit: number) {
  return async (ctx: Context, next: Next) => {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) return next();
    const buf = await readBody(ctx.req, limit);
    const text = buf.toString('utf8').trim();
    if (text === '') {
      ctx.request.body = undefined;
    } else if (ctx.is('application/x-yaml', 'application/yaml', 'text/yaml', 'text/plain')) {
      // Workflow documents may be sent as YAML; their routes parse the text themselves.
      ctx.request.body = text;
    } else {
      let parsed: unknown;
      try {
        // Validation (zod, ajv, structuredClone) recurses per level: a deep body would overflow it.
        // Its size is bounded by `limit` above.
        checkParseLimits(text, 'json', { what: 'The request body', maxBytes: Infinity });
      } catch (e) {
        throw e instanceof ParseLimitError ? fromParseLimit(e, 'body') : e;
      }
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new BadRequest(`Malformed JSON body: ${(e as Error).message}`);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
        throw new ValidationError(`The request body must be a JSON object, not ${got}`, { body: [`must be a JSON object, not ${got}`] });
      }
      ctx.request.body = parsed;
    }
    (ctx.request as { rawBody?: string }).rawBody = text;
    return next();
  };
}

declare module 'koa' {
  interface Request {
    body?: unknown;
    rawBody?: string;
  }
}
