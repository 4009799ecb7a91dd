// A webhook signing secret kept as a provider, so several tokens can verify with one secret that
// is encrypted at rest and never shown back (rotating it changes every token at once).
import { defineProvider, z } from '@capture/sdk';

export const webhookSecretProvider = defineProvider({
  type: 'webhook_secret',
  title: 'Webhook signing secret',
  description: 'The secret a sender signs its webhooks with (GitHub, Stripe, Slack, Shopify, Svix, Twilio auth token, or any HMAC key), for the verify_signature action.',
  credentials: z.object({
    secret: z.string().min(1, 'is required').describe('The signing secret as the sender shows it (e.g. whsec_..., or the Twilio auth token)'),
  }),
});
