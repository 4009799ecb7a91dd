// Every sample delivery (core/samples) is signed exactly as its provider signs: each provider's
// official library accepts every event of the catalogue, and so does our own verify_signature
// preset; a tampered copy (one byte more in the body) is refused by both. Shopify has no light
// official verifier (docs/signatures.md): its documented HMAC is checked instead.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { verify as githubVerify } from '@octokit/webhooks-methods';
import { isValidSlackRequest } from '@slack/bolt';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { fakeClock, runAction } from '@capture/sdk/testing';
import { verifySignature } from '../plugins/signatures/src/verify-signature.js';
import { SAMPLE_CATALOGUE } from '../core/samples/catalogue.js';
import { SampleService } from '../core/samples/service.js';
import type { Delivery, SampleFormat, SampleProviderId } from '../core/samples/types.js';

const SECRETS: Record<SampleProviderId, string> = {
  github: 'It\u2019s a Secret to Everybody',
  stripe: 'whsec_5f3c1e0b9a7d4c2e8f6a1b3d5c7e9f0a',
  standard_webhooks: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  svix: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
  slack: '8f742231b10e8888abcd99yyyzzz85a5',
  shopify: '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',
  twilio: '12345678901234567890123456789012',
};
const URL_ = 'https://hooks.example.com/12345678-aaaa-4bbb-8ccc-1234567890ab';

// The libraries read the time from Date.now(): deliveries are signed with the same clock.
const samples = new SampleService({
  clock: { now: () => Date.now() },
  pipeline: { actions: null, captured: [], process: () => Promise.reject(new Error('not used')) },
  sortingKey: () => 0,
  maxBodyBytes: 1 << 20,
  forward: () => Promise.reject(new Error('not used')),
});

const header = (d: Delivery, name: string): string => Object.entries(d.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1] ?? '';
const lowerHeaders = (d: Delivery) => Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v]));

/** The official library's verdict on a delivery whose body is `body` (what was signed, or a tampered copy). */
function official(provider: SampleProviderId, d: Delivery, body: Buffer, secret: string): Promise<boolean> | boolean {
  const text = body.toString('utf8');
  // Verifiers that throw on a bad signature (Stripe, Standard Webhooks, Svix) or answer false (Bolt).
  const attempt = (f: () => unknown) => {
    try {
      return f() !== false;
    } catch {
      return false;
    }
  };
  switch (provider) {
    case 'github':
      return githubVerify(secret, text, header(d, 'X-Hub-Signature-256'));
    case 'stripe':
      return attempt(() => Stripe.webhooks.constructEvent(text, header(d, 'Stripe-Signature'), secret));
    case 'standard_webhooks':
      return attempt(() => new StandardWebhook(secret).verify(text, lowerHeaders(d)));
    case 'svix':
      return attempt(() => new SvixWebhook(secret).verify(text, lowerHeaders(d)));
    case 'slack':
      return attempt(() =>
        isValidSlackRequest({ signingSecret: secret, body: text, headers: { 'x-slack-signature': header(d, 'X-Slack-Signature'), 'x-slack-request-timestamp': Number(header(d, 'X-Slack-Request-Timestamp')) } }),
      );
    case 'twilio':
      return twilio.validateRequest(secret, header(d, 'X-Twilio-Signature'), URL_, Object.fromEntries(new URLSearchParams(text)));
    case 'shopify': {
      // Shopify's documented check: the base64 HMAC-SHA256 of the raw body, compared in constant time.
      const expected = createHmac('sha256', secret).update(body).digest();
      const given = Buffer.from(header(d, 'X-Shopify-Hmac-Sha256'), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    }
  }
}

/** Our verify_signature preset's verdict on the delivery with body `body`, received at URL_. */
async function ours(provider: SampleProviderId, d: Delivery, body: Buffer, secret: string): Promise<boolean> {
  const r = await runAction(
    verifySignature,
    { preset: SAMPLE_CATALOGUE[provider].preset, secret },
    {
      request: { headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), [v]])), content: body.toString('utf8'), url: URL_ },
      rawBody: body,
      services: { clock: fakeClock(Date.now()) },
    },
  );
  expect(r.errors).toEqual([]);
  return r.vars['signature.valid'] === 'true';
}

/** One byte more: a JSON body stays valid JSON, a form gets one more field. */
const tamper = (d: Delivery): Buffer => Buffer.concat([d.body, Buffer.from(header(d, 'Content-Type').includes('json') ? ' ' : '&x=1')]);

describe('sample deliveries pass the providers’ official verifiers and verify_signature; tampered copies fail both', () => {
  for (const provider of Object.values(SAMPLE_CATALOGUE)) {
    it(`${provider.name}: every event of the catalogue`, async () => {
      const secret = SECRETS[provider.id];
      const events = provider.events();
      expect(events.length).toBeGreaterThanOrEqual(3);
      for (const e of events) {
        for (const format of e.formats as SampleFormat[]) {
          const { delivery } = samples.build({ provider: provider.id, event: e.event, secret, format }, URL_);
          const what = `${provider.id} ${e.event} (${format})`;
          expect(await official(provider.id, delivery, delivery.body, secret), what).toBe(true);
          expect(await ours(provider.id, delivery, delivery.body, secret), what).toBe(true);
          const tampered = tamper(delivery);
          expect(await official(provider.id, delivery, tampered, secret), `${what}, tampered`).toBe(false);
          expect(await ours(provider.id, delivery, tampered, secret), `${what}, tampered`).toBe(false);
        }
      }
    }, 60_000);
  }

  it('the catalogue lists a real GitHub delivery for each event and action with an example, in both forms', () => {
    const events = SAMPLE_CATALOGUE.github.events().map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(['push', 'ping', 'pull_request.opened', 'pull_request.closed', 'issues.opened', 'release.published', 'workflow_run.completed']));
    const { delivery } = samples.build({ provider: 'github', event: 'pull_request.opened', secret: SECRETS.github, format: 'form' }, URL_);
    expect(header(delivery, 'Content-Type')).toBe('application/x-www-form-urlencoded');
    const payload = JSON.parse(new URLSearchParams(delivery.body.toString()).get('payload')!);
    expect(payload).toMatchObject({ action: 'opened', pull_request: { state: 'open' } });
    expect(header(delivery, 'X-GitHub-Event')).toBe('pull_request');
    expect(header(delivery, 'User-Agent')).toMatch(/^GitHub-Hookshot\/[0-9a-f]{7}$/);
    expect(header(delivery, 'X-GitHub-Delivery')).toMatch(/^[0-9a-f-]{36}$/);
    expect(header(delivery, 'X-GitHub-Hook-ID')).toMatch(/^\d+$/);
  });

  it('GitHub without a secret sends an unsigned delivery; the others need one', () => {
    const { delivery } = samples.build({ provider: 'github', event: 'push' }, URL_);
    expect(header(delivery, 'X-Hub-Signature-256')).toBe('');
    expect(() => samples.build({ provider: 'stripe', event: 'charge.succeeded' }, URL_)).toThrow(/give its secret/);
    expect(() => samples.build({ provider: 'svix', event: 'user.created', secret: 'not base64!' }, URL_)).toThrow(/whsec_/);
    expect(() => samples.build({ provider: 'stripe', event: 'no.such.event', secret: 's' }, URL_)).toThrow(/no sample event/);
    expect(() => samples.build({ provider: 'stripe', event: 'charge.succeeded', secret: 's', format: 'form' }, URL_)).toThrow(/sends charge.succeeded as json/);
  });

  it('overrides change the payload before it is signed', async () => {
    const { delivery } = samples.build(
      { provider: 'stripe', event: 'payment_intent.succeeded', secret: SECRETS.stripe, overrides: JSON.parse('{"data":{"object":{"amount":4242,"metadata":{"order_id":"A-7"}}},"__proto__":{"polluted":true}}') },
      URL_,
    );
    const event = Stripe.webhooks.constructEvent(delivery.body.toString(), header(delivery, 'Stripe-Signature'), SECRETS.stripe);
    expect(event.data.object).toMatchObject({ object: 'payment_intent', amount: 4242, currency: 'usd', metadata: { order_id: 'A-7' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const sms = samples.build({ provider: 'twilio', event: 'sms', secret: SECRETS.twilio, overrides: { Body: 'STOP' } }, URL_).delivery;
    expect(new URLSearchParams(sms.body.toString()).get('Body')).toBe('STOP');
    expect(twilio.validateRequest(SECRETS.twilio, header(sms, 'X-Twilio-Signature'), URL_, Object.fromEntries(new URLSearchParams(sms.body.toString())))).toBe(true);
  });
});
