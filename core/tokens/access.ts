// Opening a token by id or alias for a caller: with the caller's rights (API key, owner, password)
// or with a share secret. No request context, so the HTTP layer's loadToken (core/http/token-access.ts),
// the live streams (which check again when access may have changed) and socket.io run the same rule.
import { authorizeToken, type Caller, type PasswordCheck, type TokenAccess } from '../auth/access.js';
import { NotFound, Unauthorized } from '../errors.js';
import type { Millis, Store, TokenRecord } from '../store/types.js';
import { isExpired } from './expiry.js';
import { verifyShare } from './share.js';

/** What a caller opens a token with. */
export interface TokenCredentials {
  caller: Caller;
  /** The token password offered (`?password=`, HTTP Basic), if any. */
  password: string | undefined;
  /** How an offered password is checked (TokenPasswords: `check` for a caller, `matches` for a stream's re-check). */
  checkPassword: PasswordCheck;
}

/** The check behind loadToken, without a request context: live streams run it again when access may have changed. */
export async function openToken(store: Store, idOrAlias: string, access: TokenAccess, credentials: TokenCredentials, now: Millis): Promise<TokenRecord> {
  const token = await store.tokens.resolve(idOrAlias);
  // Expired tokens are gone at once, as on capture URLs, though the cleanup job deletes them later.
  if (!token || isExpired(token, now)) throw new NotFound('Token not found');
  await authorizeToken(credentials.caller, token, access, credentials.password, credentials.checkPassword);
  return token;
}

/** Opens a token with its share secret; also run again by live streams when the share may have changed. */
export async function openShared(store: Store, idOrAlias: string, secret: string, now: Millis): Promise<TokenRecord> {
  const token = await store.tokens.resolve(idOrAlias);
  if (!token || isExpired(token, now)) throw new NotFound('Token not found');
  if (!(await verifyShare(store, token.uuid, secret))) throw new Unauthorized('This share link is not valid (revoked, or replaced by a newer one)');
  return token;
}
