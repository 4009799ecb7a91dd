import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, memoryProviders, runAction, validateParams } from '@capture/sdk/testing';
import { discordSendMessage } from '../src/discord.js';
import { apiServer, jsonOf, type ApiServer, type Received } from './api-server.js';

const WEBHOOK_PATH = '/api/webhooks/1180000000000000001/webhooktoken-secret';

// Plays Discord's Execute Webhook endpoint.
function discord(r: Received) {
  const m = /^\/api\/webhooks\/(\d+)\/([^/]+)$/.exec(r.path);
  if (!m) return { status: 404, json: { message: '404: Not Found', code: 0 } };
  if (r.path !== WEBHOOK_PATH) return { status: 401, json: { message: 'Invalid Webhook Token', code: 50027 } };
  if (r.method !== 'POST') return { status: 405, json: { message: '405: Method Not Allowed', code: 0 } };
  const body = jsonOf(r);
  if (!String(r.headers['content-type']).startsWith('application/json') || !body) return { status: 400, json: { message: 'Cannot send an empty message', code: 50006 } };
  if (typeof body.content === 'string' && body.content.length > 2000)
    return {
      status: 400,
      json: { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } },
    };
  if (body.username && /discord/i.test(body.username))
    return { status: 400, json: { message: 'Invalid Form Body', code: 50035, errors: { username: { _errors: [{ code: 'USERNAME_INVALID_CONTAINS', message: 'Username cannot contain "discord"' }] } } } };
  if (body.content === 'slow down') return { status: 429, headers: { 'Retry-After': '2' }, json: { message: 'You are being rate limited.', retry_after: 1.5, global: false } };
  if (!body.content && !body.embeds?.length) return { status: 400, json: { message: 'Cannot send an empty message', code: 50006 } };
  const message = { id: '1190000000000000042', channel_id: '1170000000000000007', content: body.content, author: { username: body.username ?? 'Captain Hook', bot: true }, embeds: body.embeds ?? [] };
  // Without ?wait=true Discord answers 204 with no body.
  return r.query.get('wait') === 'true' ? { json: message } : { status: 204 };
}

let s: ApiServer;
beforeAll(async () => {
  s = await apiServer(discord);
});
afterAll(async () => {
  await s.close();
});

function providers() {
  return memoryProviders([
    { id: '5', type: 'discord', credentials: { webhook_url: `${s.url}${WEBHOOK_PATH}` } },
    { id: '6', type: 'discord', credentials: { webhook_url: `${s.url}${WEBHOOK_PATH}` }, settings: { thread_id: '1200000000000000003' } },
    { id: '7', type: 'discord', credentials: { webhook_url: `${s.url}/api/webhooks/1180000000000000001/revoked-token` } },
    { id: '8', type: 'slack', credentials: { bot_token: 'xoxb-1' } },
  ]);
}

const run = (params: Record<string, unknown>) => runAction(discordSendMessage, params, { request: { content: 'ping' }, services: { http: fetchHttpClient, providers: providers() } });
const last = () => s.received[s.received.length - 1]!;

describe('discord_send_message', () => {
  it('executes the webhook with content, username and avatar and logs the message id', async () => {
    const r = await run({ provider_id: 5, content: 'Got $request.content$', username: 'Capture', avatar_url: 'https://example.com/a.png' });
    expect(r.errors).toEqual([]);
    expect(last()).toMatchObject({ method: 'POST', path: WEBHOOK_PATH });
    expect(last().query.get('wait')).toBe('true');
    expect(jsonOf(last())).toEqual({ content: 'Got ping', username: 'Capture', avatar_url: 'https://example.com/a.png' });
    expect(r.output).toEqual(['Discord message 1190000000000000042 sent to channel 1170000000000000007']);
  });

  it('adds an image or link embed, and a video URL to the content', async () => {
    await run({ provider_id: '5', content: 'look', embed_type: 'image', embed_url: 'https://example.com/cat.png' });
    expect(jsonOf(last())).toEqual({ content: 'look', embeds: [{ image: { url: 'https://example.com/cat.png' } }] });
    await run({ provider_id: '5', content: 'read', embed_type: 'link', embed_url: 'https://example.com/post' });
    expect(jsonOf(last())).toEqual({ content: 'read', embeds: [{ title: 'https://example.com/post', url: 'https://example.com/post' }] });
    await run({ provider_id: '5', content: 'watch', embed_type: 'video', embed_url: 'https://youtu.be/abc' });
    expect(jsonOf(last())).toEqual({ content: 'watch\nhttps://youtu.be/abc' });
    const r = await run({ provider_id: '5', content: 'x', embed_type: 'image', embed_url: '' });
    expect(r.errors).toEqual(['embed_url is required with embed_type image']);
  });

  it("posts into the provider's thread", async () => {
    const r = await run({ provider_id: 6, content: 'in a thread' });
    expect(r.errors).toEqual([]);
    expect(last().query.get('thread_id')).toBe('1200000000000000003');
  });

  it("turns Discord's JSON errors into action errors naming the field", async () => {
    const long = await run({ provider_id: 5, content: 'x'.repeat(2001) });
    expect(long.errors).toEqual(['Discord answered 400: Invalid Form Body (code 50035); content: Must be 2000 or fewer in length.']);
    const name = await run({ provider_id: 5, content: 'hi', username: 'Discord Bot' });
    expect(name.errors).toEqual(['Discord answered 400: Invalid Form Body (code 50035); username: Username cannot contain "discord"']);
  });

  it('reports a revoked webhook and a rate limit without the webhook token', async () => {
    const revoked = await run({ provider_id: 7, content: 'hi' });
    expect(revoked.errors).toEqual(['Discord answered 401: Invalid Webhook Token (code 50027)']);
    const limited = await run({ provider_id: 5, content: 'slow down' });
    expect(limited.errors).toEqual(['Discord answered 429: You are being rate limited. (retry after 2 s)']);
  });

  it('refuses an empty message without calling Discord', async () => {
    const before = s.received.length;
    expect((await run({ provider_id: 5, content: '  ' })).errors).toEqual(['content is empty: Discord cannot send an empty message']);
    expect(s.received.length).toBe(before);
  });

  it('reports a missing provider and a provider of another type', async () => {
    expect((await run({ provider_id: 99, content: 'hi' })).errors).toEqual(['Provider 99 not found']);
    expect((await run({ provider_id: 8, content: 'hi' })).errors).toEqual(['Provider 8 is a slack account, not discord']);
  });

  it('validates the parameters on create', () => {
    expect(() => validateParams(discordSendMessage, { content: 'hi' })).toThrow(/parameters.provider_id: is required/);
    expect(() => validateParams(discordSendMessage, { provider_id: 1 })).toThrow(/parameters.content: is required/);
    expect(() => validateParams(discordSendMessage, { provider_id: 1, content: 'hi', embed_type: 'gif' })).toThrow(/parameters.embed_type/);
    expect(() => validateParams(discordSendMessage, { provider_id: 1, content: 'hi', avatar_url: 'not a url' })).toThrow(/parameters.avatar_url/);
    expect(() => validateParams(discordSendMessage, { provider_id: 1, content: 'hi', embed_url: 'javascript:alert(1)' })).toThrow(/parameters.embed_url/);
    expect(validateParams(discordSendMessage, { provider_id: '1', content: 'hi', embed_type: 'video', embed_url: '$url$', avatar_url: null })).toBeTruthy();
  });
});
