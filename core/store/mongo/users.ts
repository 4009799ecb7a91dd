// Users and their API keys. Numeric ids come from the `sequences` collection.
import type { ApiKeyRecord, Millis, UserRecord, UserRepo } from '../types.js';
import { nextSeq, toApiKey, toUser, type Cols } from './docs.js';

export class MongoUserRepo implements UserRepo {
  constructor(private readonly c: Cols) {}

  async create(u: Omit<UserRecord, 'id'>): Promise<UserRecord> {
    const id = await nextSeq(this.c, 'users');
    const rec: UserRecord = {
      id,
      name: u.name,
      email: u.email,
      premium: u.premium,
      created_at: u.created_at,
      updated_at: u.updated_at,
    };
    await this.c.users.insertOne({ _id: id, ...rec });
    return rec;
  }

  async get(id: number): Promise<UserRecord | null> {
    const d = await this.c.users.findOne({ _id: id });
    return d ? toUser(d) : null;
  }

  async list(): Promise<UserRecord[]> {
    const docs = await this.c.users.find({}).sort({ _id: 1 }).toArray();
    return docs.map(toUser);
  }

  async addApiKey(userId: number, hash: string, prefix: string, now: Millis): Promise<ApiKeyRecord> {
    const id = await nextSeq(this.c, 'api_keys');
    const rec: ApiKeyRecord = { id, user_id: userId, hash, prefix, created_at: now };
    await this.c.apiKeys.insertOne({ _id: id, ...rec });
    return rec;
  }

  async listApiKeys(userId: number): Promise<ApiKeyRecord[]> {
    const docs = await this.c.apiKeys.find({ user_id: userId }).sort({ _id: 1 }).toArray();
    return docs.map(toApiKey);
  }

  async deleteApiKey(userId: number, keyId: number): Promise<boolean> {
    const res = await this.c.apiKeys.deleteOne({ _id: keyId, user_id: userId });
    return res.deletedCount > 0;
  }

  async findByApiKeyHash(hash: string): Promise<UserRecord | null> {
    const key = await this.c.apiKeys.findOne({ hash });
    return key ? this.get(key.user_id) : null;
  }
}
