// Pushed: the `pushed_send` action sends a push notification through a Pushed.co app. As
// webhook.site documents it, the app's key and secret are parameters (a Global Variable keeps the
// secret out of the action). `POST https://api.pushed.co/1/push`, form-encoded, with app_key,
// app_secret, target_type and content, plus the target: `target_alias` for a channel, `pushed_id`
// for a Pushed ID, `access_token` for a user who authorized the app (OAuth). `server` points it at
// another API base.
import { defineAction, secret, z } from '@capture/sdk';
import { apiError, asObject, callApi, field, joinUrl, optionalUrl } from './common.js';

export const PUSHED_API = 'https://api.pushed.co';

/** The form field that names the target of each target type (an app needs none). */
const TARGET_FIELD = { app: undefined, channel: 'target_alias', pushed_id: 'pushed_id', user: 'access_token' } as const;
const TARGET_TYPES = Object.keys(TARGET_FIELD) as Array<keyof typeof TARGET_FIELD>;

export const pushedSend = defineAction({
  type: 'pushed_send',
  title: 'Pushed: Send Push Notification',
  category: 'push',
  description:
    "Sends a push notification with your Pushed.co app's key and secret: to the app's subscribers (target_type app), to a channel (target: the channel alias), to a Pushed ID (pushed_id) or to a user who authorized the app (user: the OAuth access token). A free Pushed account sends up to 1000 notifications a month.",
  parameters: z.object({
    app_key: z.string().trim().min(1, 'is required'),
    app_secret: secret(z.string().trim().min(1, 'is required')),
    target_type: z.enum(TARGET_TYPES).describe('app, channel, pushed_id or user'),
    target: z.string().describe('The channel alias, Pushed ID or user access token (ignored for app)'),
    message: z.string().describe('The notification text'),
    server: optionalUrl().describe(`API base URL, default ${PUSHED_API}`),
  }),
  async execute(ctx, params) {
    if (!params.message.trim()) throw new Error('message is empty: Pushed needs a notification text');
    const form = new URLSearchParams({
      app_key: params.app_key,
      app_secret: params.app_secret,
      target_type: params.target_type,
      content: params.message,
    });
    const targetField = TARGET_FIELD[params.target_type];
    if (targetField) {
      if (!params.target.trim()) throw new Error(`target is required for target_type ${params.target_type}`);
      form.set(targetField, params.target.trim());
    }
    const secrets = [params.app_secret, params.target_type === 'user' ? params.target.trim() : undefined];
    const res = await callApi(ctx, 'Pushed', {
      method: 'POST',
      url: joinUrl(params.server ?? PUSHED_API, '/1/push'),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      secrets,
    });
    // {"response": {"type": "shipment_successfully_sent", "message": "...", "data": {"shipment": "..."}}}
    // or, failing, {"error": {"type": "app_key_invalid", "message": "..."}}.
    const error = asObject(asObject(res.json)?.error);
    if (!res.ok || error) {
      const detail = error ? [field(error, 'message'), field(error, 'type') && `(${field(error, 'type')})`].filter(Boolean).join(' ') : undefined;
      throw apiError('Pushed', res, detail, secrets);
    }
    const response = asObject(asObject(res.json)?.response);
    const shipment = field(asObject(response?.data), 'shipment');
    const to = params.target_type === 'app' ? 'the app' : params.target_type === 'user' ? 'the user' : `${params.target_type} ${params.target.trim()}`;
    ctx.log(`Pushed notification sent to ${to}${shipment ? ` (shipment ${shipment})` : ''}`);
  },
});
