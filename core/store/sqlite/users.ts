import type { Database } from 'better-sqlite3';
import type { ApiKeyRecord, UserRecord, UserRepo } from '../types.js';

interface UserRow { id: number; name: string; email: string; premium: number; created_at: number; updated_at: number }
const toUser = (r: UserRow): UserRecord => ({ ...r, premium: !!r.premium });

export function sqliteUsers(db: Database): UserRepo {
  const insert = db.prepare('INSERT INTO users (name, email, premium, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?');
  const all = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY id');
  const addKey = db.prepare('INSERT INTO api_keys (user_id, hash, prefix, created_at) VALUES (?, ?, ?, ?)');
  const keys = db.prepare<[number], ApiKeyRecord>('SELECT * FROM api_keys WHERE user_id = ? ORDER BY id');
  const delKey = db.prepare('DELETE FROM api_keys WHERE user_id = ? AND id = ?');
  const byKey = db.prepare<[string], UserRow>('SELECT u.* FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.hash = ?');
  return {
    async create(u) {
      const info = insert.run(u.name, u.email, u.premium ? 1 : 0, u.created_at, u.updated_at);
      return { ...u, id: Number(info.lastInsertRowid) };
    },
    async get(id) {
      const r = byId.get(id);
      return r ? toUser(r) : null;
    },
    async list() {
      return all.all().map(toUser);
    },
    async addApiKey(userId, hash, prefix, now) {
      const info = addKey.run(userId, hash, prefix, now);
      return { id: Number(info.lastInsertRowid), user_id: userId, hash, prefix, created_at: now };
    },
    async listApiKeys(userId) {
      return keys.all(userId);
    },
    async deleteApiKey(userId, keyId) {
      return delKey.run(userId, keyId).changes > 0;
    },
    async findByApiKeyHash(hash) {
      const r = byKey.get(hash);
      return r ? toUser(r) : null;
    },
  };
}
