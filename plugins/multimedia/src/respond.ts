// What the multimedia actions share: answering the request with the bytes they made.
//
// Their variable carries the file's bytes (bytesText), so a later Modify Response with `$pdf$`
// answers with the exact file too; `respond` does it in one step, setting the Content-Type.
import { type ActionContext, boolean, integer, z } from '@capture/sdk';
import { headerLines, setResponseHeader } from '@capture/sdk/headers';

/** The parameters that make an action answer the request with its file. */
export const respondParameters = {
  respond: boolean().nullish().describe('Answer the request with the file (its Content-Type set)'),
  status: z
    .union([integer({ min: 100, max: 599, message: 'must be an HTTP status code' }), z.literal('').transform(() => undefined)])
    .nullish()
    .describe('With respond: the status code; empty keeps the current one'),
  headers: headerLines().describe('With respond: more response headers, one "Name: value" per line'),
  stop: boolean().nullish().describe('With respond: no further actions run'),
};

type RespondParams = { respond?: boolean | null; status?: number | null; headers: Array<[string, string]>; stop?: boolean | null };

/** The header lines to answer with (checked by the schema before any work is done). */
export function checkRespond(params: RespondParams): Array<[string, string]> {
  return params.respond ? params.headers : [];
}

export function respondWith(ctx: ActionContext<unknown>, params: RespondParams, headers: Array<[string, string]>, bytes: Buffer, contentType: string): void {
  if (!params.respond) return;
  ctx.response.content = bytes;
  ctx.response.contentType = contentType;
  if (params.status) ctx.response.status = params.status;
  for (const [name, value] of headers) setResponseHeader(ctx.response, name, value);
  ctx.log(`Response set: ${contentType}, ${bytes.length} bytes, status ${ctx.response.status}`);
  if (params.stop) ctx.stop();
}
