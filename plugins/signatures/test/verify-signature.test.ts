// Each preset against signatures computed here by the sender's documented algorithm (node:crypto):
// valid, tampered, missing header, stale timestamp and several signatures where the scheme allows.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fakeClock, memoryProviders, runAction, validateParams } from '@capture/sdk/testing';
import { verifySignature } from '../src/verify-signature.js';

const SECRET = 'It\u2019s a Secret to Everybody';
// Bytes that are not valid UTF-8: a signature over re-encoded text would not match.
const BODY = Buffer.concat([Buffer.from('{"zen":"Keep it logically awesome.","n":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
const NOW_S = Math.floor(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);

const mac = (alg: string, key: string | Buffer, data: string | Buffer, enc: 'hex' | 'base64') => createHmac(alg, key).update(data).digest(enc);

async function run(params: Record<string, unknown>, headers: Record<string, string>, opts: { body?: Buffer; url?: string; globals?: Record<string, string>; providers?: Parameters<typeof memoryProviders>[0] } = {}) {
  const body = opts.body ?? BODY;
  return runAction(verifySignature, params, {
    request: {
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])),
      content: body.toString('utf8'),
      ...(opts.url ? { url: opts.url } : {}),
    },
    rawBody: body,
    globals: opts.globals,
    services: { clock: fakeClock(NOW_S * 1000), ...(opts.providers ? { providers: memoryProviders(opts.providers) } : {}) },
  });
}

const verdict = (r: Awaited<ReturnType<typeof run>>) => [r.vars['signature.valid'], r.vars['signature.reason']];

describe('github', () => {
  const sig = `sha256=${mac('sha256', SECRET, BODY, 'hex')}`;
  it('accepts the HMAC-SHA256 of the raw bytes', async () => {
    expect(verdict(await run({ preset: 'github', secret: SECRET }, { 'X-Hub-Signature-256': sig }))).toEqual(['true', 'ok']);
  });
  it('rejects a signature over the body re-encoded as text', async () => {
    const text = `sha256=${mac('sha256', SECRET, BODY.toString('utf8'), 'hex')}`;
    expect(verdict(await run({ preset: 'github', secret: SECRET }, { 'X-Hub-Signature-256': text }))).toEqual(['false', 'signature mismatch']);
  });
  it('names the missing header', async () => {
    expect(verdict(await run({ preset: 'github', secret: SECRET }, {}))).toEqual(['false', 'missing header X-Hub-Signature-256']);
  });
  it('rejects another secret', async () => {
    expect(verdict(await run({ preset: 'github', secret: 'other' }, { 'X-Hub-Signature-256': sig }))).toEqual(['false', 'signature mismatch']);
  });
});

describe('stripe', () => {
  const header = (t: number, ...extra: string[]) => [`t=${t}`, `v1=${mac('sha256', SECRET, Buffer.concat([Buffer.from(`${t}.`), BODY]), 'hex')}`, ...extra].join(',');
  it('accepts v1 over "<t>.<body>"', async () => {
    expect(verdict(await run({ preset: 'stripe', secret: SECRET }, { 'Stripe-Signature': header(NOW_S - 10) }))).toEqual(['true', 'ok']);
  });
  it('accepts when one of several v1 signatures matches (secret rotation)', async () => {
    const t = NOW_S;
    const h = `t=${t},v1=${'ab'.repeat(32)},${header(t).split(',')[1]},v0=${'cd'.repeat(32)}`;
    expect(verdict(await run({ preset: 'stripe', secret: SECRET }, { 'Stripe-Signature': h }))).toEqual(['true', 'ok']);
  });
  it('refuses a timestamp outside the default 300 s tolerance, and takes another tolerance', async () => {
    const h = header(NOW_S - 412);
    expect(verdict(await run({ preset: 'stripe', secret: SECRET }, { 'Stripe-Signature': h }))).toEqual(['false', 'timestamp outside tolerance (412 s)']);
    expect(verdict(await run({ preset: 'stripe', secret: SECRET, tolerance: '600' }, { 'Stripe-Signature': h }))).toEqual(['true', 'ok']);
    expect(verdict(await run({ preset: 'stripe', secret: SECRET, tolerance: 0 }, { 'Stripe-Signature': header(NOW_S - 99999) }))).toEqual(['true', 'ok']);
  });
  it('rejects a changed timestamp and a missing header', async () => {
    const h = header(NOW_S).replace(`t=${NOW_S}`, `t=${NOW_S - 1}`);
    expect(verdict(await run({ preset: 'stripe', secret: SECRET }, { 'Stripe-Signature': h }))).toEqual(['false', 'signature mismatch']);
    expect(verdict(await run({ preset: 'stripe', secret: SECRET }, {}))).toEqual(['false', 'missing header Stripe-Signature']);
  });
});

describe('slack', () => {
  const sign = (ts: number) => `v0=${mac('sha256', SECRET, Buffer.concat([Buffer.from(`v0:${ts}:`), BODY]), 'hex')}`;
  it('accepts v0 over "v0:<timestamp>:<body>"', async () => {
    expect(verdict(await run({ preset: 'slack', secret: SECRET }, { 'X-Slack-Signature': sign(NOW_S), 'X-Slack-Request-Timestamp': String(NOW_S) }))).toEqual(['true', 'ok']);
  });
  it('refuses a stale timestamp, a wrong one and a missing one', async () => {
    const old = NOW_S - 301;
    expect(verdict(await run({ preset: 'slack', secret: SECRET }, { 'X-Slack-Signature': sign(old), 'X-Slack-Request-Timestamp': String(old) }))).toEqual(['false', 'timestamp outside tolerance (301 s)']);
    expect(verdict(await run({ preset: 'slack', secret: SECRET }, { 'X-Slack-Signature': sign(NOW_S), 'X-Slack-Request-Timestamp': String(NOW_S + 1) }))).toEqual(['false', 'signature mismatch']);
    expect(verdict(await run({ preset: 'slack', secret: SECRET }, { 'X-Slack-Signature': sign(NOW_S) }))).toEqual(['false', 'missing header X-Slack-Request-Timestamp']);
  });
});

describe('shopify', () => {
  it('accepts the base64 HMAC-SHA256 of the body and refuses hex or a missing header', async () => {
    expect(verdict(await run({ preset: 'shopify', secret: SECRET }, { 'X-Shopify-Hmac-Sha256': mac('sha256', SECRET, BODY, 'base64') }))).toEqual(['true', 'ok']);
    expect(verdict(await run({ preset: 'shopify', secret: SECRET }, { 'X-Shopify-Hmac-Sha256': mac('sha256', SECRET, BODY, 'hex') }))).toEqual(['false', 'signature mismatch']);
    expect(verdict(await run({ preset: 'shopify', secret: SECRET }, {}))).toEqual(['false', 'missing header X-Shopify-Hmac-Sha256']);
  });
});

describe('standard webhooks (svix)', () => {
  const key = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  const whsec = `whsec_${key.toString('base64')}`;
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const sign = (ts: number, k = key) => `v1,${mac('sha256', k, Buffer.concat([Buffer.from(`${id}.${ts}.`), BODY]), 'base64')}`;
  const headers = (ts: number, sig: string) => ({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': sig });
  it('accepts v1 over "<id>.<timestamp>.<body>" keyed by the decoded whsec_ secret', async () => {
    expect(verdict(await run({ preset: 'standard_webhooks', secret: whsec }, headers(NOW_S, sign(NOW_S))))).toEqual(['true', 'ok']);
  });
  it('accepts when one of several space-separated signatures matches', async () => {
    const sig = `v1a,abc ${sign(NOW_S, Buffer.from('old-key'))} ${sign(NOW_S)}`;
    expect(verdict(await run({ preset: 'standard_webhooks', secret: whsec }, headers(NOW_S, sig)))).toEqual(['true', 'ok']);
  });
  it('accepts the svix-* header names', async () => {
    const h = { 'svix-id': id, 'svix-timestamp': String(NOW_S), 'svix-signature': sign(NOW_S) };
    expect(verdict(await run({ preset: 'standard_webhooks', secret: whsec }, h))).toEqual(['true', 'ok']);
  });
  it('refuses a stale timestamp, another secret and a missing header', async () => {
    const old = NOW_S - 3600;
    expect(verdict(await run({ preset: 'standard_webhooks', secret: whsec }, headers(old, sign(old))))).toEqual(['false', 'timestamp outside tolerance (3600 s)']);
    expect(verdict(await run({ preset: 'standard_webhooks', secret: `whsec_${Buffer.from('nope').toString('base64')}` }, headers(NOW_S, sign(NOW_S))))).toEqual(['false', 'signature mismatch']);
    expect(verdict(await run({ preset: 'standard_webhooks', secret: whsec }, { 'webhook-id': id, 'webhook-timestamp': String(NOW_S) }))).toEqual(['false', 'missing header webhook-signature']);
  });
});

describe('twilio', () => {
  const url = 'https://example.com/myapp?foo=1&bar=2';
  const form = 'To=%2B18005551212&From=%2B14158675310&Digits=1234&CallSid=CA1234567890ABCDE&Caller=%2B14158675310';
  // Twilio's documented example: the URL, then each POST parameter name+value sorted by name.
  const signed = `${url}CallSidCA1234567890ABCDECaller+14158675310Digits1234From+14158675310To+18005551212`;
  const token = '12345';
  it('accepts the base64 HMAC-SHA1 of the URL and the sorted form parameters', async () => {
    const sig = mac('sha1', token, signed, 'base64');
    const r = await run({ preset: 'twilio', secret: token, url }, { 'X-Twilio-Signature': sig, 'Content-Type': 'application/x-www-form-urlencoded' }, { body: Buffer.from(form) });
    expect(verdict(r)).toEqual(['true', 'ok']);
  });
  it('signs the request URL when no url is given; a JSON body through the bodySHA256 query parameter', async () => {
    const json = Buffer.from('{"a":1}');
    const requestUrl = `http://localhost:8084/hook?x=1&bodySHA256=${createHash('sha256').update(json).digest('hex')}`;
    const sig = mac('sha1', token, requestUrl, 'base64');
    const h = { 'X-Twilio-Signature': sig, 'Content-Type': 'application/json' };
    expect(verdict(await run({ preset: 'twilio', secret: token }, h, { url: requestUrl, body: json }))).toEqual(['true', 'ok']);
    // The configured URL without bodySHA256: the one Twilio added to the request URL is appended.
    expect(verdict(await run({ preset: 'twilio', secret: token, url: 'http://localhost:8084/hook?x=1' }, h, { url: requestUrl, body: json }))).toEqual(['true', 'ok']);
    expect(verdict(await run({ preset: 'twilio', secret: token }, h, { url: requestUrl, body: Buffer.from('{"a":2}') }))).toEqual(['false', 'body does not match bodySHA256']);
    // Without bodySHA256 nothing covers the body: a signature over the URL alone is not enough.
    const bare = 'http://localhost:8084/hook?x=1';
    const r = await run({ preset: 'twilio', secret: token }, { ...h, 'X-Twilio-Signature': mac('sha1', token, bare, 'base64') }, { url: bare, body: json });
    expect(verdict(r)).toEqual(['false', 'the body is not signed: the URL has no bodySHA256 parameter']);
  });
  it('accepts a signature over the URL with or without the default port, and each repeated pair once', async () => {
    const form2 = 'b=2&a=1&a=1&a=0';
    const sig = mac('sha1', token, 'https://example.com:443/hook?q=1a0a1b2', 'base64');
    const h = { 'X-Twilio-Signature': sig, 'Content-Type': 'application/x-www-form-urlencoded' };
    expect(verdict(await run({ preset: 'twilio', secret: token, url: 'https://example.com/hook?q=1' }, h, { body: Buffer.from(form2) }))).toEqual(['true', 'ok']);
    expect(verdict(await run({ preset: 'twilio', secret: token, url: 'https://example.org/hook?q=1' }, h, { body: Buffer.from(form2) }))).toEqual(['false', 'signature mismatch']);
  });
  it('refuses a changed parameter and a missing header', async () => {
    const sig = mac('sha1', token, signed, 'base64');
    const h = { 'X-Twilio-Signature': sig, 'Content-Type': 'application/x-www-form-urlencoded' };
    expect(verdict(await run({ preset: 'twilio', secret: token, url }, h, { body: Buffer.from(form.replace('1234&', '1235&')) }))).toEqual(['false', 'signature mismatch']);
    expect(verdict(await run({ preset: 'twilio', secret: token, url }, {}, { body: Buffer.from(form) }))).toEqual(['false', 'missing header X-Twilio-Signature']);
  });
});

describe('generic', () => {
  it('checks algorithm, encoding and prefix over the body', async () => {
    const sig = `sha512=${mac('sha512', SECRET, BODY, 'base64')}`;
    const params = { preset: 'generic', secret: SECRET, header: 'X-Signature', algorithm: 'sha512', encoding: 'base64', prefix: 'sha512=' };
    expect(verdict(await run(params, { 'X-Signature': sig }))).toEqual(['true', 'ok']);
    expect(verdict(await run({ ...params, algorithm: 'sha256' }, { 'X-Signature': sig }))).toEqual(['false', 'signature mismatch']);
    expect(verdict(await run(params, {}))).toEqual(['false', 'missing header X-Signature']);
  });
  it('signs a template with header values and the raw body bytes, with a timestamp tolerance', async () => {
    const sign = (ts: number) => mac('sha1', SECRET, Buffer.concat([Buffer.from(`${ts}.`), BODY]), 'hex');
    const params = { preset: 'generic', secret: SECRET, header: 'X-Sig', algorithm: 'sha1', signed: '$request.header.x-ts$.$request.content$', timestamp_header: 'X-Ts', tolerance: 60 };
    expect(verdict(await run(params, { 'X-Sig': sign(NOW_S), 'X-Ts': String(NOW_S) }))).toEqual(['true', 'ok']);
    expect(verdict(await run(params, { 'X-Sig': sign(NOW_S - 61), 'X-Ts': String(NOW_S - 61) }))).toEqual(['false', 'timestamp outside tolerance (61 s)']);
    expect(verdict(await run(params, { 'X-Sig': sign(NOW_S) }))).toEqual(['false', 'missing header X-Ts']);
  });
});

describe('the secret and reject', () => {
  const sig = `sha256=${mac('sha256', SECRET, BODY, 'hex')}`;
  it('takes the secret from a global variable', async () => {
    const r = await run({ preset: 'github', secret: '$global.gh_secret$' }, { 'X-Hub-Signature-256': sig }, { globals: { gh_secret: SECRET } });
    expect(verdict(r)).toEqual(['true', 'ok']);
  });
  it('takes the secret from a webhook_secret provider', async () => {
    const r = await run({ preset: 'github', provider_id: 7 }, { 'X-Hub-Signature-256': sig }, { providers: [{ id: '7', type: 'webhook_secret', credentials: { secret: SECRET } }] });
    expect(verdict(r)).toEqual(['true', 'ok']);
  });
  it('fails closed when the provider cannot be read', async () => {
    const r = await run({ preset: 'github', provider_id: 8, reject: true }, { 'X-Hub-Signature-256': sig }, { providers: [{ id: '8', type: 'aws', credentials: {} }] });
    expect(verdict(r)).toEqual(['false', 'the secret could not be read']);
    expect(r.response.status).toBe(401);
    expect(r.dontSave).toBe(true);
  });
  it('an unset or empty global secret is not valid', async () => {
    const unset = await run({ preset: 'github', secret: '$global.unset$' }, { 'X-Hub-Signature-256': sig });
    expect(verdict(unset)).toEqual(['false', 'the secret variable $global.unset$ is not set']);
    const empty = await run({ preset: 'github', secret: '$global.empty$' }, { 'X-Hub-Signature-256': sig }, { globals: { empty: '' } });
    expect(verdict(empty)).toEqual(['false', 'the secret is empty']);
  });
  it('reject answers 401 with a JSON error, stops and does not store', async () => {
    const r = await run({ preset: 'github', secret: SECRET, reject: true }, {});
    expect(r.response).toMatchObject({ status: 401, contentType: 'application/json' });
    expect(JSON.parse(String(r.response.content))).toEqual({ message: 'Invalid signature: missing header X-Hub-Signature-256' });
    expect(r.stopped).toBe(true);
    expect(r.dontSave).toBe(true);
  });
  it('without reject a failed check only sets the variables', async () => {
    const r = await run({ preset: 'github', secret: SECRET }, {});
    expect(r.response.status).toBe(200);
    expect([r.stopped, r.dontSave]).toEqual([false, false]);
  });
  it('validation names the missing secret, the generic header and a bad preset', () => {
    expect(() => validateParams(verifySignature, { preset: 'github' })).toThrow(/secret/);
    expect(() => validateParams(verifySignature, { preset: 'generic', secret: 'x' })).toThrow(/header/);
    expect(() => validateParams(verifySignature, { preset: 'gitlab', secret: 'x' })).toThrow(/preset/);
  });
});
