// Standard Webhooks (and Svix, which sends the same with `svix-*` header names): the payload shape
// of the specification (`type`, `timestamp`, `data`), signed as it says: `webhook-signature:
// v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by the base64 secret after `whsec_`.
import { hmac, jsonBody, mergeOverrides, randomId, seconds, type SampleEvent, type SampleProvider, type SampleProviderId } from '../types.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The signing key of a `whsec_<base64>` secret (the prefix is optional, as in the libraries). */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

function secretProblem(secret: string): string | null {
  const b64 = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  if (!BASE64.test(b64) || b64.length % 4 !== 0) return 'must be whsec_ followed by base64 (the secret the sender shows)';
  const bytes = Buffer.from(b64, 'base64').length;
  return bytes < 24 || bytes > 64 ? `must hold 24 to 64 bytes after whsec_ (this one holds ${bytes})` : null;
}

const EVENTS: Array<{ type: string; description: string; data: () => Record<string, unknown> }> = [
  {
    type: 'user.created',
    description: 'A user signed up (the example of the Standard Webhooks specification).',
    data: () => ({ id: randomId('user_', 24), email: 'jenny.rosen@example.com', name: 'Jenny Rosen', role: 'member' }),
  },
  { type: 'invoice.paid', description: 'An invoice was paid.', data: () => ({ id: randomId('inv_', 24), customer_id: randomId('cus_', 24), amount: 2000, currency: 'USD', status: 'paid' }) },
  { type: 'message.delivered', description: 'A message reached its recipient.', data: () => ({ id: randomId('msg_', 24), to: '+15558675310', channel: 'sms', status: 'delivered' }) },
];

function provider(id: Extract<SampleProviderId, 'standard_webhooks' | 'svix'>, headerPrefix: 'webhook' | 'svix', name: string, userAgent: string): SampleProvider {
  return {
    id,
    name,
    source: 'Written for this project from the Standard Webhooks specification (standardwebhooks.com) and its example payload',
    licence: 'MIT (this project)',
    preset: 'standard_webhooks',
    secretRequired: true,
    secretProblem,
    events: (): SampleEvent[] => EVENTS.map((e) => ({ event: e.type, description: e.description, formats: ['json'] })),
    deliver({ event, secret, now, overrides }) {
      const found = EVENTS.find((e) => e.type === event);
      if (!found) return null;
      const payload = mergeOverrides({ type: found.type, timestamp: new Date(now).toISOString(), data: found.data() }, overrides);
      const body = jsonBody(payload);
      const msgId = randomId('msg_', 27);
      const t = String(seconds(now));
      const signature = hmac('sha256', standardWebhooksKey(secret ?? ''), Buffer.concat([Buffer.from(`${msgId}.${t}.`), body])).toString('base64');
      return {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': userAgent,
          [`${headerPrefix}-id`]: msgId,
          [`${headerPrefix}-timestamp`]: t,
          [`${headerPrefix}-signature`]: `v1,${signature}`,
        },
        body,
      };
    },
  };
}

export const standardWebhooks = provider('standard_webhooks', 'webhook', 'Standard Webhooks', 'Standard-Webhooks-Sample/1.0');
export const svix = provider('svix', 'svix', 'Svix', 'Svix-Webhooks/1.0');
