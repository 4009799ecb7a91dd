// ntfy: the `ntfy` action publishes a push notification to a topic, no account needed:
// `POST <server>/<topic>` with the message as the body and the title and icon in the Title and
// Icon headers (RFC 2047-encoded when they are not plain ASCII, which ntfy decodes). `server`
// (default https://ntfy.sh) points it at a self-hosted ntfy.
import { defineAction, optionalText, z } from '@capture/sdk';
import { apiError, asObject, callApi, field, joinUrl, optionalUrl } from './common.js';

export const NTFY_SERVER = 'https://ntfy.sh';

export const ntfy = defineAction({
  type: 'ntfy',
  title: 'ntfy: Send Push Notification',
  category: 'push',
  description:
    'Publishes a push notification to an ntfy topic (no account required): subscribe to the topic in the ntfy app (App Store, Google Play, or https://ntfy.sh/app). Anyone who knows the topic name can read it, so choose one that is hard to guess.',
  parameters: z.object({
    topic: z
      .string()
      .trim()
      .regex(/^[-_A-Za-z0-9]{1,64}$/, 'must be 1-64 letters, digits, - or _')
      .describe('The topic name'),
    title: optionalText().describe('Notification title'),
    icon: optionalText().describe('URL of a JPEG or PNG icon shown with the notification'),
    message: z.string().describe('Notification body'),
    server: optionalUrl().describe(`ntfy server, default ${NTFY_SERVER}`),
  }),
  async execute(ctx, params) {
    const server = params.server ?? NTFY_SERVER;
    const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
    if (params.title?.trim()) headers.Title = headerValue(params.title.trim());
    if (params.icon?.trim()) headers.Icon = headerValue(params.icon.trim());
    const res = await callApi(ctx, 'ntfy', { method: 'POST', url: joinUrl(server, `/${params.topic}`), headers, body: params.message });
    // Errors: {"code": 42901, "http": 429, "error": "limit reached: too many requests", "link": "..."}
    if (!res.ok) {
      const error = field(res.json, 'error');
      const code = field(res.json, 'code');
      throw apiError('ntfy', res, error ? `${error}${code ? ` (code ${code})` : ''}` : undefined);
    }
    const id = field(res.json, 'id');
    const topic = field(asObject(res.json), 'topic') ?? params.topic;
    ctx.log(`ntfy notification ${id ? `${id} ` : ''}published to ${new URL(server).host}/${topic}`);
  },
});

/** Printable ASCII as it is; anything else as an RFC 2047 encoded word (`=?UTF-8?B?...?=`). */
export function headerValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
