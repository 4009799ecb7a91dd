// capture export <token> --har|--csv [--query q] [--newest] [-o file]: the token's (matching)
// requests as a HAR 1.2 archive or CSV, as the server writes them, to stdout or a file; a large
// download shows its progress on stderr.
import { once } from 'node:events';
import fs from 'node:fs';
import { progress } from '../../scripts/progress.js';
import { accept, CONNECTION, flag, text, UsageError } from '../args.js';
import type { Context } from '../context.js';

/** Downloads smaller than this finish too fast to need a progress bar. */
const PROGRESS_FROM_BYTES = 256 * 1024;

export async function exportRequests(ctx: Context, rest: string[]): Promise<number> {
  const { parsed } = ctx;
  accept(parsed, 'export', [...CONNECTION, 'har', 'csv', 'query', 'newest', 'output']);
  if (rest.length !== 1) throw new UsageError('export needs one token');
  const har = flag(parsed, 'har');
  if (har === flag(parsed, 'csv')) throw new UsageError('export needs --har or --csv (one of them)');
  const output = text(parsed, 'output');
  const res = await ctx.client().export(rest[0]!, { format: har ? 'har' : 'csv', query: text(parsed, 'query'), sorting: flag(parsed, 'newest') ? 'newest' : 'oldest' });
  const total = Number(res.headers.get('content-length') ?? NaN);
  const bar = Number.isFinite(total) && total >= PROGRESS_FROM_BYTES ? progress() : null;
  const sink = output ? fs.createWriteStream(output) : process.stdout;
  let done = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    // Ctrl-C, or stdout's reader has gone (a closed pipe never drains): stop downloading.
    if (!sink.write(chunk)) await once(sink, 'drain', { signal: ctx.signal }).catch(() => undefined);
    if (ctx.signal.aborted) break;
    done += chunk.length;
    bar?.update({ what: 'export', done, total, unit: 'bytes' });
  }
  bar?.end();
  if (output) {
    await new Promise<void>((resolve, reject) => (sink as fs.WriteStream).end((e?: Error | null) => (e ? reject(e) : resolve())));
    ctx.err(`wrote ${output} (${done} bytes)`);
  }
  return 0;
}
