import { z } from 'zod';
import { SAMPLE_PROVIDERS } from '../../samples/types.js';
import { ForwardBody } from '../requests/requests.schema.js';

export const SampleCatalogue = z.object({
  data: z.array(
    z.object({
      provider: z.enum(SAMPLE_PROVIDERS),
      name: z.string(),
      source: z.string().describe('Where the payloads come from'),
      licence: z.string(),
      verify_preset: z.string().describe('The verify_signature preset that checks these deliveries'),
      secret_required: z.boolean(),
      events: z.array(z.object({ event: z.string(), description: z.string(), formats: z.array(z.enum(['json', 'form'])).describe('Body forms it can be sent as; the first is the default') })),
    }),
  ),
});

export const SampleSendBody = z
  .object({
    provider: z.enum(SAMPLE_PROVIDERS).describe('The sender (GET /samples lists them and their events)'),
    event: z.string().min(1).max(200).describe('The event, e.g. push, pull_request.opened, payment_intent.succeeded, sms'),
    secret: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe("The signing secret, as the provider's dashboard shows it (Twilio: the auth token; Standard Webhooks/Svix: whsec_...). Only GitHub sends unsigned deliveries without one"),
    token: z.string().min(1).max(100).optional().describe("One of the caller's tokens (UUID or alias): the delivery is captured there, actions and all. Needs what changing the token needs"),
    url: ForwardBody.shape.url.optional().describe('Or a URL to send it to, through the outbound policy. Needs an API key'),
    format: z.enum(['json', 'form']).optional().describe("The body's form where the provider offers two (GitHub: json or form)"),
    overrides: z.record(z.string(), z.unknown()).optional().describe('Merged into the payload: objects key by key, anything else replaced (form posts: each key replaces a field)'),
  })
  .superRefine((b, ctx) => {
    if ((b.token === undefined) === (b.url === undefined)) ctx.addIssue({ code: 'custom', path: ['token'], message: 'give either token or url' });
  });

const Answer = z.object({
  status: z.number().int(),
  headers: z.record(z.string(), z.array(z.string())),
  body: z.string(),
  body_encoding: z.enum(['utf8', 'base64']),
  size: z.number().int(),
  truncated: z.boolean().describe('The body was cut at 1 MiB'),
  time: z.number().describe('Seconds'),
});

export const SampleSent = z.object({
  provider: z.enum(SAMPLE_PROVIDERS),
  event: z.string(),
  format: z.enum(['json', 'form']),
  verify_preset: z.string().describe('The verify_signature preset that checks it'),
  sent: z.object({
    method: z.string(),
    url: z.string().describe("Where it went: the URL, or the token's capture URL"),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    body_encoding: z.enum(['utf8', 'base64']),
  }),
  response: Answer.describe("What came back: the target's answer, or the token's (its default response, or what its actions built)"),
  request_id: z.string().nullable().describe('The capture stored in the token (null for a URL, or when the token kept none)'),
});
