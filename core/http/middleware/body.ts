// JSON bodies of API routes: read with a size limit, parsed, 400 when malformed.
import type { Context, Next } from 'koa';
import { BadRequest, PayloadTooLarge } from '../../errors.js';

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
      try {
        ctx.request.body = JSON.parse(text);
      } catch (e) {
        throw new BadRequest(`Malformed JSON body: ${(e as Error).message}`);
      }
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
