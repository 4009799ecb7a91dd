// Share links of tokens (TokenShareRepo); `_id` is the token uuid. Deleting a token deletes its
// share too (tokens.ts).
import type { TokenShareRecord, TokenShareRepo } from '../types.js';
import type { Cols } from './docs.js';

export class MongoShareRepo implements TokenShareRepo {
  constructor(private readonly c: Cols) {}

  async get(tokenId: string): Promise<TokenShareRecord | null> {
    const d = await this.c.shares.findOne({ _id: tokenId });
    return d ? { token_id: d._id, hash: d.hash, created_at: d.created_at } : null;
  }

  async put(share: TokenShareRecord): Promise<void> {
    await this.c.shares.replaceOne({ _id: share.token_id }, { hash: share.hash, created_at: share.created_at }, { upsert: true });
  }

  async delete(tokenId: string): Promise<boolean> {
    return (await this.c.shares.deleteOne({ _id: tokenId })).deletedCount > 0;
  }
}
