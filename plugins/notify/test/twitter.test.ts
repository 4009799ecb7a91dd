import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, memoryProviders, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { twitterTweet } from '../src/twitter.js';
import { apiServer, jsonOf, type ApiServer, type Received } from './api-server.js';

const TOKEN = 'bWVkaXVtLXVzZXItYWNjZXNzLXRva2Vu';
const posted = new Set<string>();

// Plays X API v2's POST /2/tweets (OAuth 2.0 user context).
function x(r: Received) {
  if (r.path !== '/2/tweets') return { status: 404, json: { title: 'Not Found Error', detail: `Could not find ${r.path}`, type: 'https://api.twitter.com/2/problems/resource-not-found', status: 404 } };
  if (r.headers.authorization !== `Bearer ${TOKEN}`) return { status: 401, json: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } };
  const body = jsonOf(r);
  if (r.headers['content-type'] !== 'application/json' || !body)
    return {
      status: 400,
      json: {
        errors: [{ message: 'Request body is not valid JSON' }],
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      },
    };
  if (body.text === 'too many') return { status: 429, headers: { 'Retry-After': '900' }, json: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 } };
  if ([...String(body.text)].length > 280)
    return {
      status: 400,
      json: {
        errors: [{ parameters: { text: [body.text] }, message: 'Your Tweet text is too long.' }],
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      },
    };
  if (posted.has(body.text)) return { status: 403, json: { detail: 'You are not allowed to create a Tweet with duplicate content.', type: 'about:blank', title: 'Forbidden', status: 403 } };
  posted.add(body.text);
  return { status: 201, json: { data: { id: '1445880548472328192', text: body.text, edit_history_tweet_ids: ['1445880548472328192'] } } };
}

let s: ApiServer;
beforeAll(async () => {
  s = await apiServer(x);
});
afterAll(async () => {
  await s.close();
});

function providers(token = TOKEN) {
  return memoryProviders([
    { id: '2', type: 'twitter', credentials: { access_token: token }, settings: { base_url: s.url } },
    { id: '3', type: 'hubspot', credentials: { access_token: 'pat' } },
  ]);
}
const run = (params: Record<string, unknown>, token?: string) => runAction(twitterTweet, params, { request: { content: 'v1.2.0' }, services: { http: fetchHttpClient, providers: providers(token) } });
const last = () => s.received[s.received.length - 1]!;

describe('twitter_tweet', () => {
  it('posts {"text": tweet} with the bearer token and logs the tweet id', async () => {
    const r = await run({ provider_id: 2, tweet: 'Released $request.content$' });
    expect(r.errors).toEqual([]);
    expect(last()).toMatchObject({ method: 'POST', path: '/2/tweets' });
    expect(last().headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(jsonOf(last())).toEqual({ text: 'Released v1.2.0' });
    expect(r.output).toEqual(['Tweet 1445880548472328192 posted: https://x.com/i/web/status/1445880548472328192']);
  });

  it("turns X's problem documents into action errors", async () => {
    await run({ provider_id: 2, tweet: 'same again' });
    const dup = await run({ provider_id: 2, tweet: 'same again' });
    expect(dup.errors).toEqual(['X answered 403: Forbidden: You are not allowed to create a Tweet with duplicate content.']);
    const long = await run({ provider_id: 2, tweet: 'x'.repeat(281) });
    expect(long.errors).toEqual(['X answered 400: Invalid Request: One or more parameters to your request was invalid.; Your Tweet text is too long.']);
    const limited = await run({ provider_id: 2, tweet: 'too many' });
    expect(limited.errors).toEqual(['X answered 429: Too Many Requests (retry after 900 s)']);
  });

  it('reports an expired token without showing it', async () => {
    const r = await run({ provider_id: 2, tweet: 'hi' }, 'expired-access-token');
    expect(r.errors).toEqual(['X answered 401: Unauthorized']);
  });

  it('refuses an empty tweet without calling X', async () => {
    const before = s.received.length;
    expect((await run({ provider_id: 2, tweet: ' ' })).errors).toEqual(['tweet is empty: X needs a text to post']);
    expect(s.received.length).toBe(before);
  });

  it('reports a missing provider and a provider of another type', async () => {
    expect((await run({ provider_id: 20, tweet: 'hi' })).errors).toEqual(['Provider 20 not found']);
    expect((await run({ provider_id: '3', tweet: 'hi' })).errors).toEqual(['Provider 3 is a hubspot account, not twitter']);
  });

  it('reports a provider without a token', async () => {
    const r = await runAction(twitterTweet, { provider_id: 1, tweet: 'hi' }, { services: { http: fetchHttpClient, providers: memoryProviders([{ id: '1', type: 'twitter', credentials: {} }]) } });
    expect(r.errors).toEqual(['X (Twitter) provider 1 cannot be used: credentials.access_token is required']);
  });

  it('calls https://api.x.com by default', async () => {
    const http = stubHttp(() => ({ status: 201, body: '{"data":{"id":"1","text":"hi"}}' }));
    const r = await runAction(twitterTweet, { provider_id: 1, tweet: 'hi' }, { services: { http, providers: memoryProviders([{ id: '1', type: 'twitter', credentials: { access_token: TOKEN } }]) } });
    expect(r.errors).toEqual([]);
    expect(http.sent[0]).toMatchObject({ method: 'POST', url: 'https://api.x.com/2/tweets' });
  });

  it('validates the parameters on create', () => {
    expect(() => validateParams(twitterTweet, { provider_id: 1 })).toThrow(/parameters.tweet: is required/);
    expect(() => validateParams(twitterTweet, { tweet: 'hi' })).toThrow(/parameters.provider_id: is required/);
    expect(() => validateParams(twitterTweet, { provider_id: '', tweet: 'hi' })).toThrow(/parameters.provider_id/);
    expect(() => validateParams(twitterTweet, { provider_id: 1, tweet: 5 })).toThrow(/parameters.tweet/);
    expect(validateParams(twitterTweet, { provider_id: 1, tweet: '$request.content$' })).toBeTruthy();
  });
});
