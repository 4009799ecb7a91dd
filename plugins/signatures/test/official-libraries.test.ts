// verify_signature against each sender's official npm library (devDependencies, used only here):
// what the library signs, the action accepts, and a tampered copy it refuses; and over many seeded
// random cases (bodies, secrets, timestamps, tampering) the action and the library's verifier give
// the same answer. Shopify has no light official library (see docs/signatures.md).
import { createHash, createHmac } from 'node:crypto';
import { sign as githubSign, verify as githubVerify } from '@octokit/webhooks-methods';
import { isValidSlackRequest } from '@slack/bolt';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeClock, runAction } from '@capture/sdk/testing';
import { verifySignature } from '../src/verify-signature.js';

// Not on a whole second, so that every side's rounding of "now" is exercised.
const NOW_MS = Date.UTC(2025, 5, 7, 8, 9, 10) + 737;
const NOW_S = Math.floor(NOW_MS / 1000);
const CASES = 60;

// The Standard Webhooks and Svix libraries read the time from Date.now() only.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW_MS);
});
afterAll(() => void vi.useRealTimers());

/** A small seeded generator (mulberry32), so every run checks the same cases. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const ALPHABET = ['a', 'Z', '0', ' ', '"', '\\', '\n', '=', '&', '+', '%', "'", 'é', '€', '中', '😀', '{', '}', ',', ':'];
  const text = (max: number) => Array.from({ length: int(1, max) }, () => pick(ALPHABET)).join('');
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(0, 255)));
  return { next, int, pick, text, bytes };
}

type Rng = ReturnType<typeof rng>;

/** A JSON body with random (valid UTF-8) text in it. */
const jsonBody = (r: Rng) => JSON.stringify({ id: `evt_${r.int(1, 1e9)}`, object: 'event', text: r.text(40), n: r.int(-1e6, 1e6) });

/** One byte of the body changed (kept valid UTF-8: a printable ASCII character is replaced). */
function tamperBody(body: string, r: Rng): string {
  const i = r.int(0, body.length - 1);
  const c = body.charCodeAt(i) === 0x41 ? 'B' : 'A';
  return body.slice(0, i) + c + body.slice(i + 1);
}

/** One character of an encoded signature changed to another of the same alphabet. */
function tamperText(sig: string, r: Rng, alphabet = '0123456789abcdef'): string {
  const i = r.int(0, sig.length - 1);
  const others = alphabet.replace(sig[i]!, '');
  return sig.slice(0, i) + others[r.int(0, others.length - 1)] + sig.slice(i + 1);
}

async function ours(params: Record<string, unknown>, headers: Record<string, string>, body: string | Buffer, url?: string): Promise<boolean> {
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const r = await runAction(verifySignature, params, {
    request: { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])), content: raw.toString('utf8'), ...(url ? { url } : {}) },
    rawBody: raw,
    services: { clock: fakeClock(NOW_MS) },
  });
  expect(r.errors).toEqual([]);
  return r.vars['signature.valid'] === 'true';
}

/** Both outcomes must occur, or the agreement checked nothing. */
function expectBothOutcomes(outcomes: boolean[]) {
  expect(outcomes.filter(Boolean).length).toBeGreaterThan(CASES / 5);
  expect(outcomes.filter((v) => !v).length).toBeGreaterThan(CASES / 5);
}

describe('GitHub: @octokit/webhooks-methods', () => {
  const secret = 'It\u2019s a Secret to Everybody';
  const body = '{"zen":"Keep it logically awesome.","emoji":"\u{1F680}"}';

  it('accepts what sign() makes and refuses a tampered body or signature', async () => {
    const sig = await githubSign(secret, body);
    expect(await githubVerify(secret, body, sig)).toBe(true);
    expect(await ours({ preset: 'github', secret }, { 'X-Hub-Signature-256': sig }, body)).toBe(true);
    expect(await ours({ preset: 'github', secret }, { 'X-Hub-Signature-256': sig }, body.replace('awesome', 'Awesome'))).toBe(false);
    expect(await ours({ preset: 'github', secret }, { 'X-Hub-Signature-256': `sha256=${tamperText(sig.slice(7), rng(1))}` }, body)).toBe(false);
  });

  it('agrees with verify() over random bodies, secrets and tampering', async () => {
    const r = rng(19);
    const outcomes: boolean[] = [];
    for (let i = 0; i < CASES; i++) {
      const key = r.text(30);
      const payload = jsonBody(r);
      let sig = await githubSign(key, payload);
      let sent = payload;
      let verifyKey = key;
      switch (r.int(0, 3)) {
        case 1:
          sent = tamperBody(payload, r);
          break;
        case 2:
          sig = `sha256=${tamperText(sig.slice(7), r)}`;
          break;
        case 3:
          verifyKey = `${key}x`;
          break;
      }
      const theirs = await githubVerify(verifyKey, sent, sig);
      expect(await ours({ preset: 'github', secret: verifyKey }, { 'X-Hub-Signature-256': sig }, sent), `case ${i}`).toBe(theirs);
      outcomes.push(theirs);
    }
    expectBothOutcomes(outcomes);
  });
});

describe('Stripe: stripe', () => {
  const { webhooks } = Stripe;
  const verify = (payload: string, header: string, secret: string, tolerance: number) => {
    try {
      return webhooks.signature!.verifyHeader(payload, header, secret, tolerance, undefined, NOW_MS);
    } catch {
      return false;
    }
  };

  it('accepts what generateTestHeaderString() makes and refuses a tampered body, signature or timestamp', async () => {
    const secret = 'whsec_test_secret_1234567890';
    const payload = JSON.stringify({ id: 'evt_test_webhook', object: 'event', data: { note: 'caf\u00e9' } });
    const header = webhooks.generateTestHeaderString({ payload, secret, timestamp: NOW_S - 30 });
    expect(webhooks.constructEvent(payload, header, secret, 300, undefined, NOW_MS).id).toBe('evt_test_webhook');
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': header }, payload)).toBe(true);
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': header }, payload.replace('caf', 'cof'))).toBe(false);
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': header.replace(`t=${NOW_S - 30}`, `t=${NOW_S - 29}`) }, payload)).toBe(false);
    const v1 = header.split('v1=')[1]!;
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': header.replace(v1, tamperText(v1, rng(2))) }, payload)).toBe(false);
    // Exactly the tolerance old, counted in whole seconds (now is NOW_S + 0.737 s): still accepted.
    const edge = webhooks.generateTestHeaderString({ payload, secret, timestamp: NOW_S - 300 });
    expect(verify(payload, edge, secret, 300)).toBe(true);
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': edge }, payload)).toBe(true);
    const stale = webhooks.generateTestHeaderString({ payload, secret, timestamp: NOW_S - 301 });
    expect(verify(payload, stale, secret, 300)).toBe(false);
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': stale }, payload)).toBe(false);
  });

  it('agrees with signature.verifyHeader() over random bodies, secrets, timestamps and tampering', async () => {
    const r = rng(23);
    const outcomes: boolean[] = [];
    for (let i = 0; i < CASES; i++) {
      const secret = `whsec_${r.bytes(24).toString('base64')}`;
      const payload = jsonBody(r);
      // The past up to twice the tolerance, and the near future (see the future test below).
      const tolerance = r.pick([300, 60, 600, 0]);
      const timestamp = NOW_S - r.int(-5, 2 * (tolerance || 300));
      let header = webhooks.generateTestHeaderString({ payload, secret, timestamp });
      let sent = payload;
      let key = secret;
      switch (r.int(0, 5)) {
        case 1:
          sent = tamperBody(payload, r);
          break;
        case 2:
          header = header.replace(/v1=(\w+)/, (_, s: string) => `v1=${tamperText(s, r)}`);
          break;
        case 3:
          key = `${secret}A`;
          break;
        case 4:
          // Several v1 signatures (a secret being rolled): the second one is right.
          header = header.replace('v1=', `v1=${'0'.repeat(64)},v1=`);
          break;
      }
      const theirs = verify(sent, header, key, tolerance);
      expect(await ours({ preset: 'stripe', secret: key, tolerance }, { 'Stripe-Signature': header }, sent), `case ${i}: ${header} tolerance ${tolerance}`).toBe(theirs);
      outcomes.push(theirs);
    }
    expectBothOutcomes(outcomes);
  });

  it('a documented difference: a timestamp beyond the tolerance in the future is refused here, not by the library', async () => {
    const secret = 'whsec_future';
    const payload = '{"id":"evt_1","object":"event"}';
    const header = webhooks.generateTestHeaderString({ payload, secret, timestamp: NOW_S + 600 });
    expect(verify(payload, header, secret, 300)).toBe(true);
    expect(await ours({ preset: 'stripe', secret }, { 'Stripe-Signature': header }, payload)).toBe(false);
  });
});

describe('Slack: @slack/bolt', () => {
  // Bolt verifies but does not sign: signatures are made by Slack's documented algorithm.
  const sign = (secret: string, ts: number, body: string) => `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
  const theirs = (secret: string, ts: number, signature: string, body: string) =>
    isValidSlackRequest({ signingSecret: secret, body, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': ts }, nowMilliseconds: NOW_MS });

  it('accepts what isValidSlackRequest() accepts and refuses a tampered body or a stale timestamp', async () => {
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&text=caf%C3%A9';
    const h = (ts: number, sig: string) => ({ 'X-Slack-Signature': sig, 'X-Slack-Request-Timestamp': String(ts) });
    const sig = sign(secret, NOW_S, body);
    expect(theirs(secret, NOW_S, sig, body)).toBe(true);
    expect(await ours({ preset: 'slack', secret }, h(NOW_S, sig), body)).toBe(true);
    expect(await ours({ preset: 'slack', secret }, h(NOW_S, sig), `${body}x`)).toBe(false);
    const old = NOW_S - 301;
    expect(theirs(secret, old, sign(secret, old, body), body)).toBe(false);
    expect(await ours({ preset: 'slack', secret }, h(old, sign(secret, old, body)), body)).toBe(false);
  });

  it('agrees with isValidSlackRequest() over random bodies, secrets, timestamps and tampering', async () => {
    const r = rng(29);
    const outcomes: boolean[] = [];
    for (let i = 0; i < CASES; i++) {
      const secret = r.bytes(16).toString('hex');
      const body = new URLSearchParams({ token: r.text(12), text: r.text(30), user_id: `U${r.int(1, 1e8)}` }).toString();
      const ts = NOW_S - r.int(-5, 420);
      let sig = sign(secret, ts, body);
      let sent = body;
      let sentTs = ts;
      switch (r.int(0, 4)) {
        case 1:
          sent = tamperBody(body, r);
          break;
        case 2:
          sig = `v0=${tamperText(sig.slice(3), r)}`;
          break;
        case 3:
          sentTs = ts + 1;
          break;
      }
      const expected = theirs(secret, sentTs, sig, sent);
      const got = await ours({ preset: 'slack', secret }, { 'X-Slack-Signature': sig, 'X-Slack-Request-Timestamp': String(sentTs) }, sent);
      expect(got, `case ${i}: ts ${sentTs}`).toBe(expected);
      outcomes.push(expected);
    }
    expectBothOutcomes(outcomes);
  });
});

describe('Standard Webhooks: standardwebhooks, and Svix: svix', () => {
  const headersFor = (prefix: 'webhook' | 'svix', id: string, ts: number, sig: string) => ({ [`${prefix}-id`]: id, [`${prefix}-timestamp`]: String(ts), [`${prefix}-signature`]: sig });
  const verifies = (fn: () => unknown) => {
    try {
      fn();
      return true;
    } catch {
      return false;
    }
  };

  it('accepts what Webhook.sign() makes (both libraries, both header names) and refuses a tampered copy', async () => {
    const secret = `whsec_${Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').toString('base64')}`;
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const payload = '{"type":"invoice.paid","data":{"amount":"12\u20ac"}}';
    const sw = new StandardWebhook(secret).sign(id, new Date(NOW_MS), payload);
    const svix = new SvixWebhook(secret).sign(id, new Date(NOW_MS), payload);
    expect(svix).toBe(sw);
    expect(await ours({ preset: 'standard_webhooks', secret }, headersFor('webhook', id, NOW_S, sw), payload)).toBe(true);
    expect(await ours({ preset: 'standard_webhooks', secret }, headersFor('svix', id, NOW_S, svix), payload)).toBe(true);
    expect(new SvixWebhook(secret).verify(payload, headersFor('svix', id, NOW_S, svix))).toEqual(JSON.parse(payload));
    for (const edge of [NOW_S - 300, NOW_S + 300, NOW_S - 301, NOW_S + 301]) {
      const h = headersFor('webhook', id, edge, new StandardWebhook(secret).sign(id, new Date(edge * 1000), payload));
      const theirs = verifies(() => new StandardWebhook(secret).verify(payload, h));
      expect(theirs).toBe(Math.abs(edge - NOW_S) <= 300);
      expect(await ours({ preset: 'standard_webhooks', secret }, h, payload), `timestamp ${edge - NOW_S} s from now`).toBe(theirs);
    }
    expect(await ours({ preset: 'standard_webhooks', secret }, headersFor('webhook', `${id}x`, NOW_S, sw), payload)).toBe(false);
    expect(await ours({ preset: 'standard_webhooks', secret }, headersFor('webhook', id, NOW_S, sw), payload.replace('paid', 'void'))).toBe(false);
  });

  it('agrees with Webhook.verify() over random bodies, secrets, ids, timestamps (past and future) and tampering', async () => {
    const r = rng(31);
    const outcomes: boolean[] = [];
    for (let i = 0; i < CASES; i++) {
      const secret = `whsec_${r.bytes(r.pick([24, 32])).toString('base64')}`;
      const id = `msg_${r.bytes(12).toString('hex')}`;
      const payload = jsonBody(r);
      // Both directions: the library refuses a timestamp too old and too new, as we do.
      const ts = NOW_S + r.int(-600, 600);
      const lib = new StandardWebhook(secret);
      let sig = lib.sign(id, new Date(ts * 1000), payload);
      let sent = payload;
      let key = secret;
      switch (r.int(0, 5)) {
        case 1:
          sent = tamperBody(payload, r);
          break;
        case 2:
          sig = `v1,${tamperText(sig.slice(3), r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
          break;
        case 3:
          key = `whsec_${r.bytes(32).toString('base64')}`;
          break;
        case 4:
          // Several signatures, space-separated (a key being rotated): the last one is right.
          sig = `v1,${r.bytes(32).toString('base64')} v1a,${r.bytes(32).toString('base64')} ${sig}`;
          break;
      }
      const headers = headersFor(i % 2 ? 'svix' : 'webhook', id, ts, sig);
      const theirs = i % 2 ? verifies(() => new SvixWebhook(key).verify(sent, headers)) : verifies(() => new StandardWebhook(key).verify(sent, headers));
      expect(await ours({ preset: 'standard_webhooks', secret: key }, headers, sent), `case ${i}: ts ${ts}`).toBe(theirs);
      outcomes.push(theirs);
    }
    expectBothOutcomes(outcomes);
  });
});

describe('Twilio: twilio', () => {
  const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const JSON_TYPE = { 'Content-Type': 'application/json' };
  type Params = Record<string, string | string[]>;
  const formBody = (params: Params) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
    return q.toString();
  };

  it('accepts what getExpectedTwilioSignature() makes for a form post and refuses a changed parameter', async () => {
    const token = '12345';
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
    const sig = twilio.getExpectedTwilioSignature(token, url, params);
    expect(twilio.validateRequest(token, sig, url, params)).toBe(true);
    expect(await ours({ preset: 'twilio', secret: token, url }, { 'X-Twilio-Signature': sig, ...FORM }, formBody(params))).toBe(true);
    expect(await ours({ preset: 'twilio', secret: token, url }, { 'X-Twilio-Signature': sig, ...FORM }, formBody({ ...params, Digits: '1235' }))).toBe(false);
  });

  it('accepts a JSON body signed through bodySHA256 and refuses a changed body', async () => {
    const token = '12345';
    const body = '{"property": "value", "boolean": true}';
    const url = `https://mycompany.com/myapp.php?foo=1&bar=2&bodySHA256=${twilio.getExpectedBodyHash(body)}`;
    const sig = twilio.getExpectedTwilioSignature(token, url, {});
    expect(twilio.validateRequestWithBody(token, sig, url, body)).toBe(true);
    expect(await ours({ preset: 'twilio', secret: token }, { 'X-Twilio-Signature': sig, ...JSON_TYPE }, body, url)).toBe(true);
    expect(twilio.validateRequestWithBody(token, sig, url, `${body} `)).toBe(false);
    expect(await ours({ preset: 'twilio', secret: token }, { 'X-Twilio-Signature': sig, ...JSON_TYPE }, `${body} `, url)).toBe(false);
  });

  it('agrees with validateRequest() over random URLs (ports, normalisation), parameters (repeats) and tampering', async () => {
    const r = rng(37);
    const outcomes: boolean[] = [];
    for (let i = 0; i < CASES; i++) {
      const token = r.bytes(16).toString('hex');
      const scheme = r.pick(['https', 'http']);
      const host = r.pick(['example.com', 'hooks.example.org', '127.0.0.1']);
      const query = r.next() < 0.7 ? `?${new URLSearchParams({ a: r.text(8), b: String(r.int(0, 99)) }).toString()}` : '';
      // Sometimes a quote left raw in the query, which new URL() re-encodes as %27.
      const url = `${scheme}://${host}/voice/${r.int(1, 999)}${query}${query && r.next() < 0.3 ? "&q=it's" : ''}`;
      const params: Params = {};
      for (let n = r.int(0, 6); n > 0; n--) {
        const name = r.pick(['To', 'From', 'Body', 'CallSid', 'Digits', 'MediaUrl0', 'a', 'B', 'b', 'é']);
        const value = r.text(12);
        const prev = params[name];
        params[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value, ...(r.next() < 0.5 ? [value] : [])];
      }
      // What Twilio signed: the URL as configured, with the default port, or normalised.
      const signedUrl = r.pick([url, url.replace(`://${host}`, `://${host}:${scheme === 'https' ? 443 : 80}`), new URL(url).toString()]);
      let sig = twilio.getExpectedTwilioSignature(token, signedUrl, params);
      let sent = params;
      let key = token;
      switch (r.int(0, 4)) {
        case 1:
          sent = { ...params, Extra: r.text(4) };
          break;
        case 2:
          sig = tamperText(sig, r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
          break;
        case 3:
          key = `${token}0`;
          break;
      }
      const theirs = twilio.validateRequest(key, sig, url, sent);
      expect(await ours({ preset: 'twilio', secret: key, url }, { 'X-Twilio-Signature': sig, ...FORM }, formBody(sent)), `case ${i}: ${signedUrl} ${JSON.stringify(sent)}`).toBe(theirs);
      outcomes.push(theirs);
    }
    expectBothOutcomes(outcomes);
  });

  it('agrees with validateRequestWithBody() over random JSON bodies and tampering', async () => {
    const r = rng(41);
    const outcomes: boolean[] = [];
    for (let i = 0; i < CASES; i++) {
      const token = r.bytes(16).toString('hex');
      const body = jsonBody(r);
      let url = `https://example.com/status/${r.int(1, 999)}?x=${r.int(0, 9)}&bodySHA256=${twilio.getExpectedBodyHash(body)}`;
      const sig = twilio.getExpectedTwilioSignature(token, url, {});
      let sent = body;
      let key = token;
      switch (r.int(0, 3)) {
        case 1:
          sent = tamperBody(body, r);
          break;
        case 2:
          url = url.replace(/bodySHA256=\w+/, `bodySHA256=${createHash('sha256').update(`${body} `).digest('hex')}`);
          break;
        case 3:
          key = `${token}0`;
          break;
      }
      const theirs = twilio.validateRequestWithBody(key, sig, url, sent);
      expect(await ours({ preset: 'twilio', secret: key }, { 'X-Twilio-Signature': sig, ...JSON_TYPE }, sent, url), `case ${i}`).toBe(theirs);
      outcomes.push(theirs);
    }
    expectBothOutcomes(outcomes);
  });
});
