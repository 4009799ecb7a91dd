// Follows a token's live events for tail and forward: reconnects after a dropped stream, resuming
// from the last request seen (Last-Event-ID) so none is missed or repeated, until Ctrl-C (exit 0)
// or the token is deleted (exit 1). A refused subscription (401, 403, 404) is an error at once.
import { CaptureError, type CapturedRequest, type Token } from '../../packages/client/src/index.js';
import type { Context } from '../context.js';
import { describeError } from '../output.js';

const RETRY_MS = 1000;

export async function follow(ctx: Context, token: Token, onOpen: () => void, onRequest: (r: CapturedRequest) => void | Promise<void>): Promise<number> {
  const client = ctx.client();
  let lastEventId: string | undefined;
  let opened = false;
  while (!ctx.signal.aborted) {
    try {
      for await (const e of client.events(token.uuid, {
        signal: ctx.signal,
        lastEventId,
        onOpen: () => {
          if (!opened) onOpen();
          else ctx.err('reconnected');
          opened = true;
        },
      })) {
        if (e.event === 'request.created') {
          if (e.id) lastEventId = e.id;
          await onRequest(e.data);
        } else if (e.event === 'token.deleted') {
          ctx.err(`token ${token.uuid} was deleted`);
          return 1;
        }
      }
    } catch (e) {
      if (ctx.signal.aborted) break;
      // Refused, or never connected: nothing a retry would change.
      if (!opened || (e instanceof CaptureError && e.status >= 400 && e.status < 500)) throw e;
      ctx.err(`stream interrupted (${describeError(e)}); reconnecting`);
    }
    if (ctx.signal.aborted) break;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  return 0;
}
