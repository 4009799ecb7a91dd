// X (Twitter): the `twitter_tweet` action and the `twitter` provider. The provider holds an OAuth
// 2.0 user-context access token (scopes tweet.read, tweet.write, users.read) obtained outside this
// service; the action posts with API v2, `POST /2/tweets` with `{"text": ...}`, and logs the new
// post's id. The token is used as it is: there is no OAuth flow, refresh or OAuth 1.0a signing here.
import { defineAction, defineProvider, providerId, z } from '@capture/sdk';
import { apiError, asObject, callApi, field, httpUrl, joinUrl, useProvider } from './common.js';

export const X_API = 'https://api.x.com';

export const twitterProvider = defineProvider({
  type: 'twitter',
  title: 'X (Twitter)',
  description:
    'An X account: an OAuth 2.0 user access token with the tweet.read, tweet.write and users.read scopes (from your X developer app). Tokens without offline.access expire after two hours; replace the token when it does.',
  credentials: z.object({
    access_token: z.string().trim().min(1, 'is required').describe('OAuth 2.0 user access token'),
  }),
  settings: z.object({
    base_url: httpUrl().optional().describe(`API base URL, default ${X_API}`),
  }),
});

export const twitterTweet = defineAction({
  type: 'twitter_tweet',
  title: 'X: Post Tweet',
  category: 'social',
  description: 'Posts a tweet (an X post) with the account of a twitter provider.',
  parameters: z.object({
    provider_id: providerId(),
    tweet: z.string().describe('The text of the post'),
  }),
  async execute(ctx, params) {
    if (!params.tweet.trim()) throw new Error('tweet is empty: X needs a text to post');
    const provider = await useProvider(ctx, params.provider_id, twitterProvider);
    const token = provider.credentials.access_token;
    const res = await callApi(ctx, 'X', {
      method: 'POST',
      url: joinUrl(provider.settings.base_url ?? X_API, '/2/tweets'),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: params.tweet }),
      secrets: [token],
    });
    if (!res.ok) throw apiError('X', res, xError(res.json), [token]);
    const id = field(asObject(asObject(res.json)?.data), 'id');
    ctx.log(id ? `Tweet ${id} posted: https://x.com/i/web/status/${id}` : 'Tweet posted');
  },
});

/**
 * X's errors are problem documents: `{"title": "Forbidden", "detail": "You are not allowed to
 * create a Tweet with duplicate content.", "type": "about:blank", "status": 403}`, with `errors`
 * (`[{"message": "..."}]`) for invalid requests.
 */
export function xError(json: unknown): string | undefined {
  const obj = asObject(json);
  if (!obj) return undefined;
  const title = field(obj, 'title');
  const detail = field(obj, 'detail');
  const messages = Array.isArray(obj.errors) ? obj.errors.map((e) => field(e, 'message')).filter((m): m is string => !!m && m !== detail) : [];
  const head = title && detail && title !== detail ? `${title}: ${detail}` : (detail ?? title);
  const text = [head, ...messages].filter(Boolean).join('; ');
  return text || undefined;
}
