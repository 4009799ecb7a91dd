// The `send_request` action: the older, simpler form of HTTP Request (text body, headers, no modes,
// auth or retry). It sends and stores the answer exactly like `http`.
import { boolean, choice, defineAction, optionalText, z } from '@capture/sdk';
import { headerLines } from '@capture/sdk/headers';
import { textBytes } from '@capture/sdk/bytes';
import { optionalNumber, prefix } from './params.js';
import { addHeader, sendAndStore } from './send.js';

export const SEND_REQUEST_METHODS = ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE'] as const;
export const SEND_REQUEST_MAX_TIMEOUT_SECONDS = 30;

export const sendRequest = defineAction({
  type: 'send_request',
  title: 'Send Request',
  category: 'network',
  description:
    'Sends an HTTP request with the content as its body (its bytes: a file or binary variable passes unchanged) and "Name: value" headers per line (the older form of HTTP Request). Without a method: POST when there is content, GET otherwise. The answer is stored in $<variable_name>.content$ (a binary answer as its bytes), .status, .headers (JSON) and .url; a failed request sets $<variable_name>.error$. Timeout at most 30 s.',
  parameters: z.object({
    url: z.string().trim().min(1, 'is required'),
    content: optionalText(),
    method: choice(SEND_REQUEST_METHODS, { upper: true }),
    headers: headerLines().describe('One "Name: value" header per line'),
    skip_ssl_verification: boolean().nullish(),
    variable_name: prefix('http').describe('Prefix of the result variables; default http'),
    timeout: optionalNumber({ min: 0, max: SEND_REQUEST_MAX_TIMEOUT_SECONDS, message: `must be between 0 and ${SEND_REQUEST_MAX_TIMEOUT_SECONDS} seconds` }),
  }),
  sets: ['<variable_name>.content', '<variable_name>.status', '<variable_name>.headers', '<variable_name>.url', '<variable_name>.error'],
  untemplated: ['variable_name'],
  async execute(ctx, params) {
    const headers: Record<string, string> = {};
    for (const [name, value] of params.headers) addHeader(headers, name, value);
    await sendAndStore(
      ctx,
      { method: params.method ?? (params.content ? 'POST' : 'GET'), url: params.url, headers, body: params.content === undefined ? undefined : textBytes(params.content) },
      {
        prefix: params.variable_name,
        timeoutMs: params.timeout ? Math.round(params.timeout * 1000) : undefined,
        insecureTls: params.skip_ssl_verification ?? false,
      },
    );
  },
});
