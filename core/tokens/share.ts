// Share links: a revocable, view-only link to one token. The link carries a random secret; the store
// keeps only its sha256 (TokenShareRepo), so the URL is shown once, when it is made. Creating a link
// again replaces the secret (the old link stops working); deleting it revokes it. A secret opens the
// token's requests and live stream and nothing else (core/http/token-access.ts says where).
//
// A change of the share runs the token's update hooks: live streams opened with a share link check it
// again on `token.updated` (core/realtime/access-guard.ts), in this process and, through the feed, in
// the others, so a revoked or replaced link ends its streams at once.
import { randomBytes } from 'node:crypto';
import { hashApiKey, safeEqual } from '../auth/secrets.js';
import type { Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';
import type { TokenService } from './service.js';

/** Prefix of share secrets, so a leaked one is recognisable (like API keys' `whk_`). */
export const SHARE_PREFIX = 'shr_';

export interface ShareStatus {
  active: boolean;
  created_at: number | null;
}

export class ShareService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly tokens: Pick<TokenService, 'updateHooks'>,
  ) {}

  /** Makes a new secret for the token (the old one stops working) and returns it: the only time it is shown. */
  async create(token: TokenRecord): Promise<{ secret: string; created_at: number }> {
    const secret = SHARE_PREFIX + randomBytes(24).toString('base64url');
    const created_at = this.clock.now();
    const replaced = (await this.store.shares.get(token.uuid)) !== null;
    await this.store.shares.put({ token_id: token.uuid, hash: hashApiKey(secret), created_at });
    if (replaced) this.changed(token);
    return { secret, created_at };
  }

  async status(token: TokenRecord): Promise<ShareStatus> {
    const share = await this.store.shares.get(token.uuid);
    return { active: share !== null, created_at: share?.created_at ?? null };
  }

  /** False when the token had no share link. */
  async revoke(token: TokenRecord): Promise<boolean> {
    const had = await this.store.shares.delete(token.uuid);
    if (had) this.changed(token);
    return had;
  }

  /** Whether `secret` is the token's current share secret. */
  async verify(tokenId: string, secret: string): Promise<boolean> {
    return verifyShare(this.store, tokenId, secret);
  }

  private changed(token: TokenRecord): void {
    for (const hook of this.tokens.updateHooks) hook(token);
  }
}

/** Whether `secret` is the token's current share secret (constant-time comparison of the hashes). */
export async function verifyShare(store: Pick<Store, 'shares'>, tokenId: string, secret: string): Promise<boolean> {
  if (!secret.startsWith(SHARE_PREFIX) || secret.length > 200) return false;
  const share = await store.shares.get(tokenId);
  return share !== null && safeEqual(share.hash, hashApiKey(secret));
}
