// Discord: the `discord_send_message` action and the `discord` provider. A connected Discord
// account is a channel webhook (what Discord's webhook.incoming authorization gives: one channel per
// connection), so the provider holds its URL, a secret. The action executes the webhook
// (`POST <webhook>?wait=true`) with content, a custom username and avatar, and an optional embed;
// `wait=true` makes Discord answer with the message, whose id is logged.
import { defineAction, defineProvider, optionalText, providerId, z } from '@capture/sdk';
import { apiError, asObject, callApi, field, httpUrl, optionalUrl, useProvider } from './common.js';

export const discordProvider = defineProvider({
  type: 'discord',
  title: 'Discord',
  description: 'A Discord channel webhook (Channel settings > Integrations > Webhooks > Copy Webhook URL). Messages go to its channel with the username and avatar each action chooses.',
  credentials: z.object({
    webhook_url: httpUrl().describe('https://discord.com/api/webhooks/<id>/<token>'),
  }),
  settings: z.object({
    thread_id: z.string().trim().regex(/^\d+$/, 'must be a thread ID (digits)').optional().describe('Post into this thread of the channel'),
  }),
});

const EMBED_TYPES = ['link', 'image', 'video'] as const;

export const discordSendMessage = defineAction({
  type: 'discord_send_message',
  title: 'Discord: Send Message',
  category: 'chat',
  description:
    'Sends a message to the channel of a discord provider (a channel webhook) with an optional custom username and avatar. An embed shows embed_url as a link card (link), an image (image), or, for video, the URL is added to the message so Discord shows its player (webhooks cannot send video embeds).',
  parameters: z.object({
    provider_id: providerId(),
    content: z.string().describe('The message (up to 2000 characters, Discord Markdown)'),
    username: optionalText().describe("Overrides the webhook's name"),
    avatar_url: optionalUrl().describe("Overrides the webhook's avatar"),
    embed_type: z
      .union([z.literal(''), z.enum(EMBED_TYPES)])
      .nullish()
      .transform((v) => v || undefined)
      .describe('link, image or video (with embed_url)'),
    embed_url: optionalUrl(),
  }),
  async execute(ctx, params) {
    const provider = await useProvider(ctx, params.provider_id, discordProvider);
    const webhook = provider.credentials.webhook_url;
    const embedType = params.embed_type ?? (params.embed_url ? 'link' : undefined);
    if (embedType && !params.embed_url) throw new Error(`embed_url is required with embed_type ${embedType}`);

    let content = params.content;
    const embeds: Array<Record<string, unknown>> = [];
    if (embedType === 'link') embeds.push({ title: params.embed_url, url: params.embed_url });
    if (embedType === 'image') embeds.push({ image: { url: params.embed_url } });
    if (embedType === 'video') content = content ? `${content}\n${params.embed_url}` : params.embed_url!;
    if (!content.trim() && !embeds.length) throw new Error('content is empty: Discord cannot send an empty message');

    const body: Record<string, unknown> = { content };
    if (params.username) body.username = params.username;
    if (params.avatar_url) body.avatar_url = params.avatar_url;
    if (embeds.length) body.embeds = embeds;

    const url = new URL(webhook);
    url.searchParams.set('wait', 'true');
    if (provider.settings.thread_id) url.searchParams.set('thread_id', provider.settings.thread_id);
    const res = await callApi(ctx, 'Discord', {
      method: 'POST',
      url: url.href,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      secrets: [webhook, url.href],
    });
    if (!res.ok) throw apiError('Discord', res, discordError(res.json), [webhook]);
    const id = field(res.json, 'id');
    const channel = field(res.json, 'channel_id');
    ctx.log(['Discord message', id, 'sent', channel && `to channel ${channel}`].filter(Boolean).join(' '));
  },
});

/**
 * Discord's JSON errors: `{"message": "Invalid Form Body", "code": 50035, "errors": {"content":
 * {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "..."}]}}}`, or `{"message": "Unknown
 * Webhook", "code": 10015}` (a 429's wait comes from its Retry-After header).
 */
export function discordError(json: unknown): string | undefined {
  const obj = asObject(json);
  if (!obj) return undefined;
  const message = field(obj, 'message');
  const code = field(obj, 'code');
  const fields: string[] = [];
  const walk = (node: unknown, path: string[]) => {
    const o = asObject(node);
    if (!o) return;
    for (const [k, v] of Object.entries(o)) {
      if (k === '_errors' && Array.isArray(v)) {
        const texts = v.map((e) => field(e, 'message')).filter((t): t is string => !!t);
        if (texts.length) fields.push(`${path.join('.') || 'body'}: ${texts.join(' ')}`);
      } else walk(v, [...path, k]);
    }
  };
  walk(obj.errors, []);
  const parts = [message && code ? `${message} (code ${code})` : (message ?? (code ? `code ${code}` : undefined)), ...fields];
  const text = parts.filter(Boolean).join('; ');
  return text || undefined;
}
