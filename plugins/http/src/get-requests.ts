// The `webhook_get_requests` action (Get Requests): reads the captured requests of a URL of the
// same account (and group) through ctx.services.requests, either into numbered variables or as the
// items the following actions repeat over.
import { boolean, type CapturedRequest, choice, defineAction, integer, optionalText, z } from '@capture/sdk';
import { prefix } from './params.js';

export const DEFAULT_MAX_REQUESTS = 100;
export const MAX_REQUESTS = 1000;
/** The chain runner repeats at most this many times (ActionContext.repeat). */

/** A captured request's fields as variable values: text as is, numbers as text, objects as JSON, null as "". */
export function requestFields(r: CapturedRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(r)) {
    if (value === undefined) continue;
    out[key] = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return out;
}

export const getRequests = defineAction({
  type: 'webhook_get_requests',
  title: 'Get Requests',
  category: 'webhook',
  description:
    'Retrieves the requests of a URL (its token ID, alias or address) of this account in the same group or in no group, optionally filtered with a search query, newest or oldest first, at most max (default 100, up to 1000). Repeat off: $<variable_name>.0.uuid$, $<variable_name>.0.content$, $<variable_name>.1.uuid$... Repeat on: the following actions run once per request with $<variable_name>.uuid$, .method, .content, .created_at.... $<variable_name>.count$ is the number found.',
  parameters: z.object({
    variable_name: prefix('req').describe('Prefix of the variables; default req'),
    repeat: boolean().nullish(),
    token_id: z.string().trim().min(1, 'is required').describe('Token ID, alias or URL whose requests are read'),
    sorting: choice(['newest', 'oldest']),
    query: optionalText().describe('A search in the requests query language'),
    max: z
      .union([integer({ min: 1, max: MAX_REQUESTS, message: `must be between 1 and ${MAX_REQUESTS}` }), z.literal('').transform(() => undefined)])
      .nullish()
      .transform((v) => v ?? DEFAULT_MAX_REQUESTS)
      .describe('Requests read; default 100, at most 1000'),
  }),
  sets: ['<variable_name>.count', '<variable_name>.<n>.uuid', '<variable_name>.<n>.method', '<variable_name>.<n>.content', '<variable_name>.<n>.created_at', '...', '<variable_name>.uuid (repeat)', '...'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const p = params.variable_name;
    const query = params.query?.trim() || undefined;
    const list = await ctx.services.requests.list(params.token_id, { query, limit: params.max, sorting: params.sorting ?? 'newest' });
    const found = list.slice(0, params.max);
    ctx.vars.set(`${p}.count`, found.length);
    const what = `${found.length} request${found.length === 1 ? '' : 's'} of ${params.token_id}${query ? ` matching ${JSON.stringify(query)}` : ''}`;
    if (params.repeat) {
      const items = found.map((r) => Object.fromEntries(Object.entries(requestFields(r)).map(([k, v]) => [`${p}.${k}`, v])));
      if (!items.length) ctx.log(`Found no requests of ${params.token_id}${query ? ` matching ${JSON.stringify(query)}` : ''}; the following actions do not run`);
      else ctx.log(`Found ${what}; repeating the following actions for each, with $${p}.uuid$, $${p}.content$...`);
      ctx.repeat(items);
      return;
    }
    found.forEach((r, i) => {
      for (const [k, v] of Object.entries(requestFields(r))) ctx.vars.set(`${p}.${i}.${k}`, v);
    });
    ctx.log(`Found ${what}${found.length ? `: $${p}.0.uuid$ to $${p}.${found.length - 1}.uuid$` : ''}`);
  },
});
