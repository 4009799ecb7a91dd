// The one test of token expiry. Every reader (capture URLs, the API, realtime, mail, DNS) treats a
// token as gone from the moment expires_at is reached, not when the cleanup job deletes it later.
import type { Millis, TokenRecord } from '../store/types.js';

export function isExpired(token: Pick<TokenRecord, 'expires_at'>, now: Millis): boolean {
  return token.expires_at !== null && token.expires_at <= now;
}
