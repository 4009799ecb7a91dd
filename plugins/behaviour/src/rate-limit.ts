import { createHash } from 'node:crypto';
import { defineAction, integer, optionalText, z } from '@capture/sdk';

export const rateLimit = defineAction({
  type: 'rate_limit',
  title: 'Rate Limit',
  category: 'behaviour',
  // Only meaningful inline: it changes the answer to the capture or whether the capture is stored.
  queueable: false,
  description:
    'Allows `count` requests per `period` seconds for each key (default the client IP), the period starting at the first request. Beyond that the URL answers 429 with Retry-After, the request is not stored and no further actions run.',
  parameters: z.object({
    period: integer({ min: 1, max: 86_400 * 31 }).describe('Window length in seconds'),
    count: integer({ min: 0 }).describe('Requests allowed per window'),
    key: optionalText().describe('What to count per, e.g. $request.header.x-api-key$; default the client IP'),
  }),
  async execute({ params, request, token, action, response, services, dontSave, stop, log }) {
    const periodMs = params.period * 1000;
    const now = services.clock.now();
    const who = params.key?.trim() || request.ip;
    const key = `rate_limit:${token.uuid}:${action.uuid}:${createHash('sha256').update(who).digest('base64url')}`;
    // The window opens at the key's first request (shared by every process on the store): with
    // windows aligned to the epoch, two requests either side of a boundary were both allowed.
    const { count: n, openedAt } = await services.counters.hitWindow(key, now, periodMs);
    if (n <= params.count) return log(`Request ${n} of ${params.count} in this ${params.period} s window`);
    const retryAfter = Math.max(1, Math.ceil((openedAt + periodMs - now) / 1000));
    response.status = 429;
    response.content = 'Too Many Requests';
    response.contentType = 'text/plain';
    response.headers['Retry-After'] = String(retryAfter);
    dontSave();
    stop();
    log(`Rate limit of ${params.count} per ${params.period} s exceeded: answered 429, not saved`);
  },
});
