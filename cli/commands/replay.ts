// capture replay <token> [request...] [--query q | --all] [--target url] [--method M] [--actions]:
// sends stored requests again, by the server (its forward endpoint, under its outbound policy), to
// --target or by default to the token's own URL (a new capture); with --actions runs the token's
// Custom Actions again on them instead. Default: the newest request. Many requests show progress.
import type { CapturedRequest } from '../../packages/client/src/index.js';
import { progress } from '../../scripts/progress.js';
import { accept, CONNECTION, flag, text, UsageError } from '../args.js';
import type { Context } from '../context.js';
import { describeError } from '../output.js';

export async function replay(ctx: Context, rest: string[]): Promise<number> {
  const { parsed } = ctx;
  accept(parsed, 'replay', [...CONNECTION, 'query', 'all', 'target', 'method', 'actions', 'json']);
  const [ref, ...ids] = rest;
  if (!ref) throw new UsageError('replay needs a token');
  const query = text(parsed, 'query');
  const all = flag(parsed, 'all');
  if ([ids.length > 0, query !== undefined, all].filter(Boolean).length > 1) throw new UsageError('replay takes request IDs, or --query, or --all: one of them');
  const actions = flag(parsed, 'actions');
  const target = text(parsed, 'target');
  const method = text(parsed, 'method');
  if (actions && (target || method)) throw new UsageError("--actions runs the token's actions again; --target and --method go with a forward instead");
  if (target !== undefined && (!URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol))) throw new UsageError(`--target must be an http:// or https:// URL, not ${JSON.stringify(target)}`);
  const json = flag(parsed, 'json');

  const client = ctx.client();
  const token = await client.getToken(ref);
  const requests: CapturedRequest[] = [];
  if (query !== undefined || all) {
    for await (const r of client.allRequests(token.uuid, { query: query ?? '' })) requests.push(r);
  } else {
    for (const id of ids.length ? ids : ['latest']) requests.push(await client.getRequest(token.uuid, id));
  }
  if (!requests.length) {
    ctx.err('no request to replay');
    return 1;
  }
  const destination = target ?? client.captureUrl(token);
  // Per-request lines on a terminal; a progress bar on stderr when they go to a file or pipe.
  const bar = requests.length > 1 && !process.stdout.isTTY ? progress() : null;
  let failed = 0;
  let done = 0;
  for (const r of requests) {
    // Ctrl-C, or stdout's reader has gone: the requests not sent yet stay unsent.
    if (ctx.signal.aborted) break;
    try {
      if (actions) {
        const result = (await client.execute(token.uuid, r.uuid)) as { output?: string[]; errors?: unknown[] };
        const errors = result.errors?.length ?? 0;
        if (json) ctx.out(JSON.stringify({ request: r.uuid, ...result }));
        else ctx.out(`${r.uuid}  actions ran: ${result.output?.length ?? 0} output lines, ${errors} errors`);
      } else {
        if (r.type !== 'web') throw new Error(`is ${r.type === 'email' ? 'an e-mail' : 'a DNS lookup'}; only HTTP requests can be sent again`);
        const result = await client.forward(token.uuid, r.uuid, destination, method);
        if (json) ctx.out(JSON.stringify({ request: r.uuid, ...result }));
        else ctx.out(`${r.uuid}  ${ctx.paint.method(result.method.padEnd(6))} ${result.url} -> ${ctx.paint.status(result.status)} ${ctx.paint.dim(`${Math.round(result.time * 1000)} ms`)}`);
      }
    } catch (e) {
      failed++;
      ctx.err(`${r.uuid}: ${describeError(e)}`);
    }
    done++;
    bar?.update({ what: 'replay', done, total: requests.length, unit: 'requests' });
  }
  bar?.end();
  if (requests.length > 1) ctx.err(`${done - failed} of ${requests.length} replayed${failed ? `, ${failed} failed` : ''}${done < requests.length ? ' (stopped)' : ''}`);
  return failed ? 1 : 0;
}
