// capture send <provider> <event> --secret s --to <token|url> [--format json|form]
// [--overrides json] [--json]: one sample delivery, signed as the provider signs (POST /samples/send,
// docs/samples.md), into a token or to a URL; prints what came back. `capture send --list` (with
// a provider: its events) shows the catalogue.
import type { SampleSend } from '../../packages/client/src/index.js';
import { accept, CONNECTION, flag, text, UsageError } from '../args.js';
import type { Context } from '../context.js';

const isUrl = (s: string) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol);

/** `--overrides '{"data":{"object":{"amount":4242}}}'`: a JSON object merged into the payload. */
function overridesOf(ctx: Context): Record<string, unknown> | undefined {
  const raw = text(ctx.parsed, 'overrides');
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--overrides must be a JSON object');
  return parsed as Record<string, unknown>;
}

async function list(ctx: Context, provider: string | undefined): Promise<number> {
  const { data } = await ctx.client().samples();
  if (provider === undefined) {
    for (const p of data) ctx.out(`${ctx.paint.bold(p.provider.padEnd(18))} ${p.events.length} events  ${p.name}: ${p.source} (${p.licence})`);
    return 0;
  }
  const found = data.find((p) => p.provider === provider);
  if (!found) throw new UsageError(`unknown provider ${JSON.stringify(provider)}: one of ${data.map((p) => p.provider).join(', ')}`);
  for (const e of found.events) ctx.out(`${e.event.padEnd(44)} ${e.formats.join('/').padEnd(9)} ${e.description}`);
  return 0;
}

export async function send(ctx: Context, rest: string[]): Promise<number> {
  accept(ctx.parsed, 'send', [...CONNECTION, 'secret', 'to', 'format', 'overrides', 'json', 'list']);
  if (flag(ctx.parsed, 'list')) return list(ctx, rest[0]);
  if (rest.length !== 2) throw new UsageError('send needs a provider and an event (capture send --list shows them)');
  const [provider, event] = rest as [string, string];
  const to = text(ctx.parsed, 'to');
  if (!to) throw new UsageError('send needs --to <token or url>');
  const format = text(ctx.parsed, 'format');
  if (format !== undefined && format !== 'json' && format !== 'form') throw new UsageError('--format is json or form');
  const body: SampleSend = {
    provider: provider as SampleSend['provider'],
    event,
    ...(isUrl(to) ? { url: to } : { token: to }),
    ...(text(ctx.parsed, 'secret') !== undefined ? { secret: text(ctx.parsed, 'secret') } : {}),
    ...(format ? { format } : {}),
  };
  const overrides = overridesOf(ctx);
  if (overrides) body.overrides = overrides;
  const r = await ctx.client().sendSample(body);
  if (flag(ctx.parsed, 'json')) {
    ctx.out(JSON.stringify(r));
    return 0;
  }
  ctx.out(`sent ${r.provider} ${r.event} to ${r.sent.url}: ${ctx.paint.status(r.response.status)}${r.request_id ? ` (stored as request ${r.request_id})` : ''}`);
  if (r.response.body) ctx.out(r.response.body_encoding === 'base64' ? `(${r.response.size} bytes of binary answer)` : r.response.body);
  return 0;
}
