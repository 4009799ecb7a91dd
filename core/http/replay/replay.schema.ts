import { z } from 'zod';
import { MAX_REPLAY_REQUESTS } from '../../replay/service.js';
import { ForwardBody } from '../requests/requests.schema.js';

export const ReplayBody = z
  .object({
    mode: z.enum(['actions', 'forward']).default('actions').describe("actions: run the token's Custom Actions again on each request (their output replaces the stored one); forward: send each request to `url`"),
    url: ForwardBody.shape.url.optional().describe('forward: where each request goes (its headers and body go along), through the outbound policy'),
    method: ForwardBody.shape.method.describe("forward: instead of each request's own method"),
    query: z.string().max(4096).optional().describe('Only the requests matching this search query (the search language of request lists); all when left out'),
    sorting: z.enum(['oldest', 'newest']).default('oldest').describe('Which requests come first'),
    ordered: z.boolean().default(false).describe('Guaranteed ordering: one request at a time in `sorting` order (slower); otherwise a few at once'),
    limit: z.number().int().min(1).max(MAX_REPLAY_REQUESTS).default(MAX_REPLAY_REQUESTS).describe(`At most this many requests (up to ${MAX_REPLAY_REQUESTS})`),
  })
  .superRefine((b, ctx) => {
    if (b.mode === 'forward' && !b.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'is required when mode is forward' });
    if (b.mode === 'actions' && b.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'is only for mode forward' });
  });

export const ReplayView = z.object({
  id: z.string().uuid(),
  token_id: z.string().uuid(),
  mode: z.enum(['actions', 'forward']),
  url: z.string().nullable(),
  method: z.string().nullable(),
  query: z.string().nullable(),
  sorting: z.enum(['oldest', 'newest']),
  ordered: z.boolean(),
  limit: z.number().int(),
  status: z.enum(['queued', 'running', 'done', 'cancelled', 'failed']),
  cancel_requested: z.boolean(),
  total: z.number().int().describe('Requests matching when the replay was made (at most `limit`)'),
  processed: z.number().int(),
  ran: z.number().int().describe('Requests whose actions ran without errors, or that the target answered below 400'),
  failed: z.number().int().describe('Requests with action errors, an error, or a target answer of 400 or more'),
  skipped: z.number().int().describe('Requests left alone: no actions to run, or (forward) not an HTTP request'),
  progress: z.number().int().describe('Percent of `total` processed'),
  log: z.array(z.object({ request_id: z.string(), outcome: z.enum(['failed', 'skipped']), message: z.string() })).describe('The first 100 failures and skips'),
  error: z.string().nullable().describe('Why the replay stopped, when it failed'),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

export const ReplayList = z.object({ data: z.array(ReplayView) });
