// capture tail <token> [--json]: captured requests as they arrive, one line each (coloured on a
// terminal), or one JSON object per line with --json.
import { accept, CONNECTION, flag, UsageError } from '../args.js';
import type { Context } from '../context.js';
import { requestLine } from '../output.js';
import { follow } from './follow.js';

export async function tail(ctx: Context, rest: string[]): Promise<number> {
  accept(ctx.parsed, 'tail', [...CONNECTION, 'json']);
  if (rest.length !== 1) throw new UsageError('tail needs one token');
  const json = flag(ctx.parsed, 'json');
  const token = await ctx.client().getToken(rest[0]!);
  return follow(
    ctx,
    token,
    () => ctx.err(`waiting for requests to ${ctx.client().captureUrl(token)} (Ctrl-C to stop)`),
    (r) => ctx.out(json ? JSON.stringify(r) : requestLine(r, token, ctx.paint)),
  );
}
