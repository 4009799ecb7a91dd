// The `javascript` action: runs the script in the QuickJS sandbox (core/sandbox) and applies what
// it did (variables, output, response, stop, don't save) to the chain.
import type { DependencyContainer } from 'tsyringe';
import { NatsSessions } from './nats.js';
import { type ActionContext, type CapturedRequest, defineAction, type ResponseDraft, SANDBOX, type SandboxPool, z } from '@capture/sdk';
import { accountOf } from '@capture/sdk/fair-share';
import { setResponseHeader } from '@capture/sdk/headers';
import type { HostCalls, SandboxResponseHeaders } from '@capture/sdk/sandbox';

/** Outgoing requests made by a script time out like the HTTP Request action's (inline). */
const FETCH_TIMEOUT_MS = 15_000;

/** The process's sandbox pool, registered by the action runtime (a test registers its own). */
function poolFor(container: DependencyContainer): SandboxPool {
  if (!container.isRegistered(SANDBOX, true)) throw new Error('The JavaScript sandbox is not available in this process');
  return container.resolve(SANDBOX);
}

/** The captured request as the script sees it (`request`): API JSON, file bytes left out. */
function scriptRequest(request: CapturedRequest): Record<string, unknown> {
  const strip = (f: Record<string, unknown>) => {
    const { content: _content, ...rest } = f;
    return rest;
  };
  const files = Array.isArray(request.files) ? request.files.map((f) => strip({ ...f })) : Object.fromEntries(Object.entries(request.files ?? {}).map(([k, f]) => [k, strip({ ...f })]));
  return { ...request, files };
}

/** What a run holds open (NATS connections); ended when the run ends. */
interface RunResources {
  nats?: NatsSessions;
}

function hostCalls(ctx: Pick<ActionContext, 'services' | 'signal' | 'timeLeftMs' | 'log'>, held: RunResources): HostCalls {
  return {
    async fetch(req) {
      const res = await ctx.services.http.request({
        method: req.method,
        url: req.url,
        headers: req.headers,
        ...(req.body !== null && req.method !== 'GET' && req.method !== 'HEAD' ? { body: req.body } : {}),
        timeoutMs: Math.max(1, Math.min(FETCH_TIMEOUT_MS, ctx.timeLeftMs())),
        signal: ctx.signal,
      });
      return { status: res.status, headers: res.headers, body: res.body.toString('utf8') };
    },
    globalGet: (name) => ctx.services.globals.get(name),
    globalSet: (name, value) => ctx.services.globals.set(name, value),
    // The account's hosted databases (core/databases): resolves with `error` set on SQL errors.
    db: (q) => ctx.services.databases.query(q.database, q.query, q.params),
    // require('nats'): connections through the outbound policy, closed when the run ends.
    nats: (call) => (held.nats ??= new NatsSessions({ net: ctx.services.net, timeLeftMs: ctx.timeLeftMs, warn: (line) => ctx.log(line) })).call(call),
  };
}

/** Applies `respond`/`set_response` headers (`['Name: value']` or `{Name: value}`) to the draft. */
function applyHeaders(ctx: Pick<ActionContext, 'error'>, draft: ResponseDraft, headers: SandboxResponseHeaders): void {
  const pairs: Array<[string, string]> = Array.isArray(headers)
    ? headers.flatMap((h): Array<[string, string]> => {
        const i = h.indexOf(':');
        return i > 0 ? [[h.slice(0, i).trim(), h.slice(i + 1).trim()]] : [];
      })
    : Object.entries(headers);
  for (const [name, value] of pairs) {
    try {
      setResponseHeader(draft, name, value);
    } catch (e) {
      ctx.error(`${(e as Error).message}; it was ignored`);
    }
  }
}

export const javascript = defineAction({
  type: 'javascript',
  title: 'JavaScript',
  category: 'scripting',
  description:
    'Runs JavaScript in a sandbox (QuickJS, no host access) with top-level await. Functions: console.log/echo, stop(), dont_save(), ' +
    'respond(content, status, headers) and set_response(...), set(name, value), get(name), the variables object, the request object, ' +
    'async global(name[, value]) and store(name, value) for Global Variables, db(id). require() serves lodash, dayjs (and dayjs/plugin/*), ' +
    'moment, cheerio, jsonpath, jsonpath-plus, faker (@faker-js/faker, English locale), form-data, axios, fetch, crypto, buffer ' +
    '(Buffer is also a global), nats (a NATS client: connect, publish, request, subscribe; connections last the run) and supabase ' +
    "(@supabase/supabase-js's database client: createClient(url, key).from(table) select/insert/update/upsert/delete with filters, " +
    'against any PostgREST server); fetch, axios, supabase and nats go out through the server, under its outbound policy.',
  parameters: z.object({
    script: z.string().max(1_000_000).describe('The JavaScript code to run'),
  }),
  // Scripts are code: `$...$` and `${...}` in them are JavaScript, not variables (use get()).
  untemplated: ['script'],
  async execute(ctx, params) {
    const timeoutMs = ctx.timeLeftMs();
    if (timeoutMs <= 0) throw new Error('No time left to run the script');
    const before = ctx.vars.all();
    const held: RunResources = {};
    let result;
    try {
      result = await poolFor(ctx.container).run({ script: params.script, variables: before, request: scriptRequest(ctx.request), timeoutMs, account: accountOf(ctx.token), queued: ctx.queued }, hostCalls(ctx, held));
    } finally {
      await held.nats?.close();
    }
    for (const line of result.output) ctx.log(line);
    for (const [name, value] of Object.entries(result.variables)) if (before[name] !== value) ctx.vars.set(name, value);
    if (result.response) {
      const { content, status, headers } = result.response;
      if (content !== undefined) ctx.response.content = content;
      if (status !== undefined) ctx.response.status = status;
      if (headers !== undefined) applyHeaders(ctx, ctx.response, headers);
    }
    if (result.dontSave) ctx.dontSave();
    if (result.stopped) ctx.stop();
    if (result.error !== null) ctx.error(result.error);
  },
});
