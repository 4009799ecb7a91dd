// capture forward <token> --target <url> [--listen-timeout s]: each HTTP request the token
// captures is sent on to the target (same method, path after the token, query, headers and exact
// body), and the caller, held by the token's `listen`, is answered with the target's response
// through set-response, as `whcli forward` does. The token's listen is set for the session and put
// back on exit. E-mail and DNS captures are reported and skipped.
import { CaptureError, type CapturedRequest, type Token } from '../../packages/client/src/index.js';
import { accept, CONNECTION, flag, number, text, UsageError } from '../args.js';
import type { Context } from '../context.js';
import { describeError, pathAfterToken } from '../output.js';
import { follow } from './follow.js';

/** Not passed on (RFC 9110 hop-by-hop, or set by whoever sends the next hop). */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'host', 'content-length']);
/** fetch decodes compressed answers, so the body passed back is no longer encoded. */
const DECODED = new Set(['content-encoding', 'content-length']);
const TARGET_TIMEOUT_MS = 30_000;

/** The target URL for a capture: the target's path, then the capture's path after the token, and its query. */
export function targetUrl(target: string, r: CapturedRequest, token: Token): string {
  const t = new URL(target);
  const rest = pathAfterToken(r.url, token);
  const q = rest.indexOf('?');
  const restPath = q < 0 ? rest : rest.slice(0, q);
  t.pathname = t.pathname.replace(/\/+$/, '') + (restPath === '/' && t.pathname !== '/' ? '' : restPath);
  if (q >= 0) t.search = rest.slice(q);
  return t.toString();
}

export async function forward(ctx: Context, rest: string[]): Promise<number> {
  accept(ctx.parsed, 'forward', [...CONNECTION, 'target', 'listen-timeout', 'json']);
  if (rest.length !== 1) throw new UsageError('forward needs one token');
  const target = text(ctx.parsed, 'target');
  if (!target) throw new UsageError('forward needs --target <url>');
  if (!URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) throw new UsageError(`--target must be an http:// or https:// URL, not ${JSON.stringify(target)}`);
  const listen = number(ctx.parsed, 'listen-timeout', 0, 10, 10);
  const json = flag(ctx.parsed, 'json');
  const client = ctx.client();
  const token = await client.getToken(rest[0]!);
  const previousListen = token.listen;
  if (previousListen !== listen) await client.updateToken(token.uuid, { listen });
  const inFlight = new Set<Promise<void>>();

  async function handle(r: CapturedRequest): Promise<void> {
    if (r.type !== 'web') {
      ctx.err(`skipped ${r.type} capture ${r.uuid} (only HTTP requests are forwarded)`);
      return;
    }
    const url = targetUrl(target!, r, token);
    const started = Date.now();
    let answer: { status: number; content: string; headers: Record<string, string[]> };
    let outcome: string;
    try {
      const headers = new Headers();
      for (const [name, values] of Object.entries(r.headers)) if (!HOP.has(name.toLowerCase())) for (const v of values) headers.append(name, v);
      const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : new Uint8Array(await client.raw(token.uuid, r.uuid));
      const res = await fetch(url, { method: r.method, headers, body, redirect: 'manual', signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(TARGET_TIMEOUT_MS)]) });
      const content = Buffer.from(await res.arrayBuffer());
      const back: Record<string, string[]> = {};
      res.headers.forEach((value, name) => {
        if (!HOP.has(name) && !DECODED.has(name)) back[name] = name === 'set-cookie' ? res.headers.getSetCookie() : [value];
      });
      answer = { status: res.status, content: content.toString('base64'), headers: back };
      outcome = String(res.status);
    } catch (e) {
      if (ctx.signal.aborted) return;
      const why = (e as Error).name === 'TimeoutError' ? `no answer within ${TARGET_TIMEOUT_MS / 1000} s` : ((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
      answer = { status: 502, content: Buffer.from(`capture forward: ${url} could not be reached (${why})\n`).toString('base64'), headers: { 'content-type': ['text/plain; charset=utf-8'] } };
      outcome = `failed (${why})`;
    }
    const ms = Date.now() - started;
    let answered = listen > 0;
    if (answered) {
      try {
        await client.respond(token.uuid, r.uuid, answer);
      } catch (e) {
        answered = false;
        // 409: the caller's wait ended (listen timed out) before the target answered.
        if (!(e instanceof CaptureError && e.status === 409)) ctx.err(`could not answer ${r.uuid}: ${describeError(e)}`);
      }
    }
    if (json)
      ctx.out(JSON.stringify({ request: r.uuid, method: r.method, url, status: outcome === String(answer.status) ? answer.status : null, error: outcome === String(answer.status) ? null : outcome, ms, answered }));
    else
      ctx.out(
        `${ctx.paint.method(r.method.padEnd(6))} ${url} -> ${/^\d+$/.test(outcome) ? ctx.paint.status(answer.status) : outcome} ${ctx.paint.dim(`${ms} ms${answered ? '' : listen > 0 ? ', caller no longer waiting' : ''}`)}`,
      );
  }

  try {
    return await follow(
      ctx,
      token,
      () => ctx.err(`forwarding ${client.captureUrl(token)} to ${target}${listen > 0 ? ` (callers wait up to ${listen} s for its answer)` : ''}; Ctrl-C to stop`),
      (r) => {
        const p = handle(r).catch((e) => ctx.err(`error forwarding ${r.uuid}: ${describeError(e)}`));
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      },
    );
  } finally {
    await Promise.allSettled([...inFlight]);
    if (previousListen !== listen) {
      try {
        await client.updateToken(token.uuid, { listen: previousListen });
      } catch (e) {
        if (!(e instanceof CaptureError && e.status === 404)) ctx.err(`could not put the token's listen back to ${previousListen}: ${describeError(e)}`);
      }
    }
  }
}
