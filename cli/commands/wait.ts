// capture wait <token> [--query ...] [--timeout s] [--after id]: the matching request as JSON on
// stdout and exit 0, or exit 1 when none arrived in time. For CI steps: `capture wait $TOKEN
// --query 'method:POST' --timeout 30 | jq .content`.
import { WaitTimeout } from '../../packages/client/src/index.js';
import { accept, CONNECTION, number, text, UsageError } from '../args.js';
import type { Context } from '../context.js';

export async function wait(ctx: Context, rest: string[]): Promise<number> {
  accept(ctx.parsed, 'wait', [...CONNECTION, 'query', 'timeout', 'after']);
  if (rest.length !== 1) throw new UsageError('wait needs one token');
  const query = text(ctx.parsed, 'query') ?? '';
  const timeout = number(ctx.parsed, 'timeout', 0, 24 * 3600, 30);
  const after = text(ctx.parsed, 'after');
  try {
    const r = await ctx.client().waitForRequest(rest[0]!, query, timeout, { after, signal: ctx.signal });
    ctx.out(JSON.stringify(r));
    return 0;
  } catch (e) {
    if (e instanceof WaitTimeout) {
      ctx.err(`timeout: no request${query ? ` matching ${JSON.stringify(query)}` : ''} arrived within ${timeout} s`);
      return 1;
    }
    if (ctx.signal.aborted) return 1;
    throw e;
  }
}
