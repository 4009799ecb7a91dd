// Slack: the `slack_send_message` action and the `slack` provider. As webhook.site documents it,
// the action posts to an incoming-webhook URL (`webhook_url`): `{"text": content}`, or with `raw`
// the content itself as the JSON payload (blocks, attachments...). With `provider_id` it posts
// through a Slack app instead: the provider's bot token calls chat.postMessage (channel, text, and a
// custom username and icon when the app has chat:write.customize), or the provider's own webhook
// URL is used, kept encrypted instead of sitting in the action's parameters.
import { type ActionContext, boolean, defineAction, defineProvider, optionalText, secret, z } from '@capture/sdk';
import { apiError, asObject, callApi, field, hostOf, httpUrl, joinUrl, optionalProviderId, optionalUrl, useProvider } from './common.js';

export const SLACK_API = 'https://slack.com/api';

export const slackProvider = defineProvider({
  type: 'slack',
  title: 'Slack',
  description:
    'A Slack app. Its bot token (xoxb-..., scope chat:write; chat:write.customize for a custom username or icon) posts to any channel the bot is in with chat.postMessage; or an incoming-webhook URL posts to the channel it was created for.',
  credentials: z
    .object({
      bot_token: z.string().trim().min(1).optional().describe('Bot User OAuth Token (xoxb-...)'),
      webhook_url: httpUrl().optional().describe('Incoming webhook URL (https://hooks.slack.com/services/...)'),
    })
    .refine((c) => !!c.bot_token || !!c.webhook_url, { message: 'give a bot_token or a webhook_url' }),
  settings: z.object({
    channel: z.string().trim().min(1).optional().describe('Default channel for the bot token: an ID (C0123...) or #name'),
    base_url: httpUrl().optional().describe(`Web API base URL, default ${SLACK_API}`),
  }),
});

const parameters = z
  .object({
    webhook_url: secret(optionalUrl()).describe('Incoming webhook URL (https://hooks.slack.com/services/...). Not needed with provider_id'),
    raw: boolean().nullish().describe('Send the content as the JSON payload itself (blocks, attachments...) instead of as text'),
    content: z.string().describe('The message text (Slack mrkdwn), or the JSON payload with raw'),
    provider_id: optionalProviderId().describe('A slack provider: its bot token (chat.postMessage) or its webhook URL is used instead of webhook_url'),
    channel: optionalText().describe("With a bot token: the channel ID or #name (default: the provider's channel)"),
    username: optionalText().describe('Custom bot name (bot token with chat:write.customize)'),
    icon_url: optionalUrl().describe('Custom bot icon image URL (bot token with chat:write.customize)'),
    icon_emoji: optionalText().describe('Custom bot icon emoji such as :robot_face: (bot token with chat:write.customize)'),
  })
  .superRefine((p, ctx) => {
    if (!p.webhook_url && !p.provider_id) ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'is required (or give provider_id)' });
  });

type Params = z.output<typeof parameters>;

export const slackSendMessage = defineAction({
  type: 'slack_send_message',
  title: 'Slack: Send Message',
  category: 'chat',
  description:
    "Sends a message to a Slack channel through an incoming-webhook URL, or through a slack provider (bot token with chat.postMessage and an optional custom username and icon, or the provider's webhook URL). With raw, the content is sent as Slack's JSON payload.",
  parameters,
  async execute(ctx, params) {
    const payload = buildPayload(params);
    if (params.provider_id) {
      const provider = await useProvider(ctx, params.provider_id, slackProvider);
      const { bot_token, webhook_url } = provider.credentials;
      if (bot_token) return postMessage(ctx, params, payload, bot_token, provider.settings);
      return postWebhook(ctx, webhook_url!, payload);
    }
    return postWebhook(ctx, params.webhook_url!, payload);
  },
});

/** `{"text": content}`, or the raw JSON object; custom name and icon added where not in it. */
function buildPayload(params: Params): Record<string, unknown> {
  let payload: Record<string, unknown>;
  if (params.raw) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(params.content);
    } catch (e) {
      throw new Error(`content is not valid JSON (raw is on): ${(e as Error).message}`);
    }
    const obj = asObject(parsed);
    if (!obj) throw new Error('content must be a JSON object when raw is on (a Slack message payload)');
    payload = { ...obj };
  } else {
    if (!params.content.trim()) throw new Error('content is empty: Slack needs a message text');
    payload = { text: params.content };
  }
  if (params.username && payload.username === undefined) payload.username = params.username;
  if (params.icon_url && payload.icon_url === undefined) payload.icon_url = params.icon_url;
  if (params.icon_emoji && payload.icon_emoji === undefined) payload.icon_emoji = params.icon_emoji;
  return payload;
}

async function postWebhook(ctx: ActionContext<unknown>, url: string, payload: Record<string, unknown>): Promise<void> {
  const res = await callApi(ctx, 'Slack', {
    method: 'POST',
    url,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(payload),
    secrets: [url],
  });
  // Incoming webhooks answer "ok", or a status with a plain-text reason (invalid_payload, no_text,
  // channel_not_found, action_prohibited...).
  if (!res.ok) throw apiError('Slack webhook', res, field(res.json, 'error'), [url]);
  ctx.log(`Slack message sent through the incoming webhook (${hostOf(url)})`);
}

async function postMessage(ctx: ActionContext<unknown>, params: Params, payload: Record<string, unknown>, token: string, settings: z.output<NonNullable<typeof slackProvider.settings>>): Promise<void> {
  const channel = payload.channel ?? params.channel ?? settings.channel;
  if (!channel) throw new Error("channel is required to post with a bot token (or set the provider's channel)");
  const body = { ...payload, channel };
  const res = await callApi(ctx, 'Slack', {
    method: 'POST',
    url: joinUrl(settings.base_url ?? SLACK_API, '/chat.postMessage'),
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
    secrets: [token],
  });
  const json = asObject(res.json);
  // The Web API answers 200 with {"ok": false, "error": "channel_not_found"} for most failures.
  if (!res.ok || json?.ok !== true) {
    const error = field(json, 'error');
    const detail = error ? `${error}${slackDetails(json)}` : undefined;
    if (res.ok) throw new Error(`Slack API error: ${detail ?? 'unexpected answer'}`);
    throw apiError('Slack', res, detail, [token]);
  }
  const where = field(json, 'channel') ?? String(channel);
  ctx.log(`Slack message posted to ${where} (ts ${field(json, 'ts') ?? 'unknown'})`);
  const warning = field(json, 'warning');
  if (warning) ctx.log(`Slack warning: ${warning}`);
}

/** The `response_metadata.messages` Slack adds to invalid_arguments and similar errors. */
function slackDetails(json: Record<string, unknown> | undefined): string {
  const messages = asObject(json?.response_metadata)?.messages;
  return Array.isArray(messages) && messages.length ? ` (${messages.map(String).join('; ')})` : '';
}
