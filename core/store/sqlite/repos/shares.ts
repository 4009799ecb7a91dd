// Share links of tokens (TokenShareRepo): one row per token, the secret's sha256 only.
import type { Database } from 'better-sqlite3';
import type { TokenShareRecord, TokenShareRepo } from '../../types.js';

export function sqliteShares(db: Database): TokenShareRepo {
  const get = db.prepare<[string], TokenShareRecord>('SELECT token_id, hash, created_at FROM token_shares WHERE token_id = ?');
  const put = db.prepare<[TokenShareRecord]>(
    `INSERT INTO token_shares (token_id, hash, created_at) VALUES (@token_id, @hash, @created_at)
     ON CONFLICT (token_id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at`,
  );
  const del = db.prepare<[string]>('DELETE FROM token_shares WHERE token_id = ?');
  return {
    async get(tokenId) {
      return get.get(tokenId) ?? null;
    },
    async put(share) {
      put.run({ token_id: share.token_id, hash: share.hash, created_at: share.created_at });
    },
    async delete(tokenId) {
      return del.run(tokenId).changes > 0;
    },
  };
}
