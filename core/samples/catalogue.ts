// The sample providers, by id: what GET /samples lists and POST /samples/send builds from.
import { github } from './providers/github.js';
import { shopify } from './providers/shopify.js';
import { slack } from './providers/slack.js';
import { standardWebhooks, svix } from './providers/standard-webhooks.js';
import { stripe } from './providers/stripe.js';
import { twilio } from './providers/twilio.js';
import type { SampleProvider, SampleProviderId } from './types.js';

export const SAMPLE_CATALOGUE: Readonly<Record<SampleProviderId, SampleProvider>> = {
  github,
  stripe,
  standard_webhooks: standardWebhooks,
  svix,
  slack,
  shopify,
  twilio,
};
