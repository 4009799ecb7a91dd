import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, memoryProviders, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { slackProvider, slackSendMessage } from '../src/slack.js';
import { apiServer, jsonOf, type ApiServer, type Received } from './api-server.js';

const BOT_TOKEN = 'xoxb-1111-2222-secret';
const HOOK_PATH = '/services/T0001/B0001/hooksecret123';
const CHANNELS: Record<string, string> = { C0123: 'C0123', '#general': 'C0123', '#alerts': 'C0456' };

// Plays Slack: incoming webhooks under /services/..., the Web API's chat.postMessage under /api.
function slack(r: Received) {
  if (r.path.startsWith('/services/')) {
    if (r.method !== 'POST') return { status: 405, text: 'invalid_method' };
    if (r.path !== HOOK_PATH) return { status: 403, text: 'invalid_token' };
    const body = jsonOf(r);
    if (!String(r.headers['content-type']).startsWith('application/json') || !body) return { status: 400, text: 'invalid_payload' };
    if (body.text === 'to an archived channel') return { status: 410, text: 'channel_is_archived' };
    if (!body.text && !body.blocks) return { status: 400, text: 'no_text' };
    return { text: 'ok' };
  }
  if (r.path === '/api/chat.postMessage') {
    if (r.method !== 'POST') return { json: { ok: false, error: 'invalid_request' } };
    if (r.headers.authorization !== `Bearer ${BOT_TOKEN}`) return { json: { ok: false, error: 'invalid_auth' } };
    if (r.headers['content-type'] !== 'application/json; charset=utf-8') return { json: { ok: false, error: 'invalid_form_data' } };
    const body = jsonOf(r);
    if (body.text === 'too fast') return { status: 429, headers: { 'Retry-After': '30' }, json: { ok: false, error: 'ratelimited' } };
    const channel = CHANNELS[body.channel];
    if (!channel) return { json: { ok: false, error: 'channel_not_found' } };
    if (!body.text && !body.blocks) return { json: { ok: false, error: 'no_text' } };
    if (body.blocks && !Array.isArray(body.blocks)) return { json: { ok: false, error: 'invalid_blocks_format', response_metadata: { messages: ['[ERROR] must provide an array [json-pointer:/blocks]'] } } };
    return { json: { ok: true, channel, ts: '1700000000.000100', message: { text: body.text, username: body.username } } };
  }
  return { status: 404, text: 'Not Found' };
}

let s: ApiServer;
beforeAll(async () => {
  s = await apiServer(slack);
});
afterAll(async () => {
  await s.close();
});

function providers() {
  return memoryProviders([
    { id: '7', type: 'slack', credentials: { bot_token: BOT_TOKEN }, settings: { base_url: `${s.url}/api`, channel: '#general' } },
    { id: '8', type: 'slack', credentials: { webhook_url: `${s.url}${HOOK_PATH}` } },
    { id: '9', type: 'discord', credentials: { webhook_url: `${s.url}/api/webhooks/1/x` } },
  ]);
}

const run = (params: Record<string, unknown>, vars?: Record<string, string>) =>
  runAction(slackSendMessage, params, { vars, request: { content: '{"order":42}' }, services: { http: fetchHttpClient, providers: providers() } });

const last = () => s.received[s.received.length - 1]!;

describe('slack_send_message with an incoming webhook', () => {
  it('posts {"text": content} to the webhook URL, variables replaced', async () => {
    const r = await run({ webhook_url: `${s.url}${HOOK_PATH}`, content: 'New order: $request.content$' });
    expect(r.errors).toEqual([]);
    expect(last()).toMatchObject({ method: 'POST', path: HOOK_PATH });
    expect(jsonOf(last())).toEqual({ text: 'New order: {"order":42}' });
    expect(r.output).toEqual([`Slack message sent through the incoming webhook (${new URL(s.url).host})`]);
  });

  it('sends the content itself as the payload with raw', async () => {
    const payload = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Order* $x$' } }] };
    const r = await run({ webhook_url: `${s.url}${HOOK_PATH}`, raw: 'true', content: JSON.stringify(payload) }, { x: '42' });
    expect(r.errors).toEqual([]);
    expect(jsonOf(last())).toEqual({ blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Order* 42' } }] });
  });

  it('refuses raw content that is not a JSON object, without calling Slack', async () => {
    const before = s.received.length;
    const r = await run({ webhook_url: `${s.url}${HOOK_PATH}`, raw: true, content: 'not json' });
    expect(r.errors[0]).toMatch(/^content is not valid JSON \(raw is on\)/);
    const r2 = await run({ webhook_url: `${s.url}${HOOK_PATH}`, raw: true, content: '[1]' });
    expect(r2.errors).toEqual(['content must be a JSON object when raw is on (a Slack message payload)']);
    expect(s.received.length).toBe(before);
  });

  it("reports the webhook's error without the secret URL", async () => {
    const r = await run({ webhook_url: `${s.url}${HOOK_PATH}`, content: 'to an archived channel' });
    expect(r.errors).toEqual(['Slack webhook answered 410: channel_is_archived']);
    const bad = await run({ webhook_url: `${s.url}/services/T0001/B0001/wrongsecret`, content: 'hi' });
    expect(bad.errors).toEqual(['Slack webhook answered 403: invalid_token']);
    expect(bad.errors[0]).not.toContain('wrongsecret');
  });

  it('reports an unreachable webhook by its host only', async () => {
    const r = await run({ webhook_url: 'http://127.0.0.1:1/services/T/B/unreachablesecret', content: 'hi' });
    expect(r.errors[0]).toMatch(/^Could not reach Slack \(127\.0\.0\.1:1\): /);
    expect(r.errors[0]).not.toContain('unreachablesecret');
  });

  it("uses a provider's webhook URL (kept as a credential)", async () => {
    const r = await run({ provider_id: 8, content: 'from the provider' });
    expect(r.errors).toEqual([]);
    expect(last().path).toBe(HOOK_PATH);
    expect(jsonOf(last())).toEqual({ text: 'from the provider' });
  });
});

describe('slack_send_message with a bot token (chat.postMessage)', () => {
  it("posts to the provider's default channel and logs the channel and ts", async () => {
    const r = await run({ provider_id: '7', content: 'Hello $request.method$' });
    expect(r.errors).toEqual([]);
    expect(last()).toMatchObject({ method: 'POST', path: '/api/chat.postMessage' });
    expect(last().headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(jsonOf(last())).toEqual({ text: 'Hello POST', channel: '#general' });
    expect(r.output).toEqual(['Slack message posted to C0123 (ts 1700000000.000100)']);
  });

  it('sends a chosen channel, username and icon', async () => {
    const r = await run({ provider_id: 7, channel: '#alerts', content: 'hi', username: 'Capture Bot', icon_emoji: ':robot_face:', icon_url: '' });
    expect(r.errors).toEqual([]);
    expect(jsonOf(last())).toEqual({ text: 'hi', channel: '#alerts', username: 'Capture Bot', icon_emoji: ':robot_face:' });
    expect(r.output).toEqual(['Slack message posted to C0456 (ts 1700000000.000100)']);
  });

  it('sends a raw payload with the channel added', async () => {
    const r = await run({ provider_id: 7, raw: true, content: '{"blocks":[{"type":"divider"}],"text":"fallback"}', icon_url: 'https://example.com/i.png' });
    expect(r.errors).toEqual([]);
    expect(jsonOf(last())).toEqual({ blocks: [{ type: 'divider' }], text: 'fallback', icon_url: 'https://example.com/i.png', channel: '#general' });
  });

  it('turns {"ok": false, "error": ...} into an action error', async () => {
    const r = await run({ provider_id: 7, channel: '#nowhere', content: 'hi' });
    expect(r.errors).toEqual(['Slack API error: channel_not_found']);
    const blocks = await run({ provider_id: 7, raw: true, content: '{"blocks":{"type":"divider"}}' });
    expect(blocks.errors).toEqual(['Slack API error: invalid_blocks_format ([ERROR] must provide an array [json-pointer:/blocks])']);
  });

  it('reports a rate limit with its Retry-After', async () => {
    const r = await run({ provider_id: 7, content: 'too fast' });
    expect(r.errors).toEqual(['Slack answered 429: ratelimited (retry after 30 s)']);
  });

  it('reports a wrong token without showing it', async () => {
    const providers = memoryProviders([{ id: '1', type: 'slack', credentials: { bot_token: 'xoxb-wrong-token' }, settings: { base_url: `${s.url}/api`, channel: 'C0123' } }]);
    const r = await runAction(slackSendMessage, { provider_id: 1, content: 'hi' }, { services: { http: fetchHttpClient, providers } });
    expect(r.errors).toEqual(['Slack API error: invalid_auth']);
  });

  it('needs a channel when neither the action nor the provider names one', async () => {
    const providers = memoryProviders([{ id: '1', type: 'slack', credentials: { bot_token: BOT_TOKEN }, settings: { base_url: `${s.url}/api` } }]);
    const r = await runAction(slackSendMessage, { provider_id: 1, content: 'hi' }, { services: { http: fetchHttpClient, providers } });
    expect(r.errors).toEqual(["channel is required to post with a bot token (or set the provider's channel)"]);
  });

  it('calls https://slack.com/api by default', async () => {
    const http = stubHttp(() => ({ status: 200, body: '{"ok":true,"channel":"C1","ts":"1.2"}' }));
    const providers = memoryProviders([{ id: '1', type: 'slack', credentials: { bot_token: BOT_TOKEN }, settings: { channel: 'C1' } }]);
    const r = await runAction(slackSendMessage, { provider_id: 1, content: 'hi' }, { services: { http, providers } });
    expect(r.errors).toEqual([]);
    expect(http.sent[0]).toMatchObject({ method: 'POST', url: 'https://slack.com/api/chat.postMessage' });
  });
});

describe('slack_send_message providers and parameters', () => {
  it('reports a missing provider and a provider of another type', async () => {
    expect((await run({ provider_id: 404, content: 'hi' })).errors).toEqual(['Provider 404 not found']);
    expect((await run({ provider_id: 9, content: 'hi' })).errors).toEqual(['Provider 9 is a discord account, not slack']);
  });

  it('validates the parameters on create', () => {
    expect(() => validateParams(slackSendMessage, { webhook_url: 'https://hooks.slack.com/services/a/b/c' })).toThrow(/parameters.content: is required/);
    expect(() => validateParams(slackSendMessage, { content: 'hi' })).toThrow(/parameters.webhook_url: is required \(or give provider_id\)/);
    expect(() => validateParams(slackSendMessage, { webhook_url: 'ftp://example.com/x', content: 'hi' })).toThrow(/parameters.webhook_url/);
    expect(() => validateParams(slackSendMessage, { webhook_url: 'https://hooks.slack.com/x', content: 'hi', raw: 'maybe' })).toThrow(/parameters.raw/);
    expect(validateParams(slackSendMessage, { webhook_url: '$slack_hook$', content: 'hi', raw: false })).toBeTruthy();
    expect(validateParams(slackSendMessage, { provider_id: 12, content: 'hi' })).toBeTruthy();
  });

  it('a provider needs a bot token or a webhook URL', () => {
    expect(slackProvider.credentials.safeParse({}).success).toBe(false);
    expect(slackProvider.credentials.safeParse({ webhook_url: 'not a url' }).success).toBe(false);
    expect(slackProvider.credentials.safeParse({ bot_token: 'xoxb-1' }).success).toBe(true);
    expect(slackProvider.settings!.safeParse({ base_url: 'http://127.0.0.1:9/api' }).success).toBe(true);
  });

  it('reports a provider whose stored credentials do not fit', async () => {
    const providers = memoryProviders([{ id: '1', type: 'slack', credentials: {} }]);
    const r = await runAction(slackSendMessage, { provider_id: 1, content: 'hi' }, { services: { http: fetchHttpClient, providers } });
    expect(r.errors).toEqual(['Slack provider 1 cannot be used: credentials give a bot_token or a webhook_url']);
  });
});
