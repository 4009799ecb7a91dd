// Users and their API keys. Numeric ids come from the `sequences` collection.
import type { ApiKeyRecord, Millis, NewUser, Page, UserPatch, UserRecord, UserRepo } from '../types.js';
import { defined, escapeRegex, nextSeq, toApiKey, toUser, type Cols } from './docs.js';

export class MongoUserRepo implements UserRepo {
  constructor(private readonly c: Cols) {}

  async create(u: NewUser): Promise<UserRecord> {
    const id = await nextSeq(this.c, 'users');
    const rec: UserRecord = {
      id,
      name: u.name,
      email: u.email,
      premium: u.premium,
      // Without a team the user starts their own, named by their ID.
      team_id: u.team_id ?? id,
      user_type_id: u.user_type_id ?? 100,
      role_id: u.role_id ?? null,
      group_ids: u.group_ids ?? null,
      invite_hash: u.invite_hash ?? null,
      invite_expires_at: u.invite_expires_at ?? null,
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

  async page(teamId: number | null, page: number, perPage: number): Promise<Page<UserRecord>> {
    const filter = teamId === null ? {} : { team_id: teamId };
    const [docs, total] = await Promise.all([
      this.c.users
        .find(filter)
        .sort({ _id: 1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
      this.c.users.countDocuments(filter),
    ]);
    return { items: docs.map(toUser), total };
  }

  async findByEmail(email: string): Promise<UserRecord[]> {
    const docs = await this.c.users
      .find({ email: { $regex: `^${escapeRegex(email)}$`, $options: 'i' } })
      .sort({ _id: 1 })
      .toArray();
    return docs.map(toUser);
  }

  async update(id: number, patch: UserPatch): Promise<UserRecord | null> {
    const set = defined(patch);
    if (Object.keys(set).length) await this.c.users.updateOne({ _id: id }, { $set: set });
    return this.get(id);
  }

  async delete(id: number): Promise<boolean> {
    await this.c.apiKeys.deleteMany({ user_id: id });
    return (await this.c.users.deleteOne({ _id: id })).deletedCount > 0;
  }

  async useInvite(hash: string, now: Millis): Promise<UserRecord | null> {
    const d = await this.c.users.findOne({ invite_hash: { $eq: hash, $type: 'string' }, invite_expires_at: { $gt: now } });
    if (!d) return null;
    // Conditional on the hash still being there: of two concurrent uses, one modifies the document.
    const res = await this.c.users.updateOne({ _id: d._id, invite_hash: hash }, { $set: { invite_hash: null, invite_expires_at: null, updated_at: now } });
    return res.modifiedCount === 1 ? this.get(d._id) : null;
  }

  async findByInvite(hash: string): Promise<UserRecord | null> {
    const d = await this.c.users.findOne({ invite_hash: { $eq: hash, $type: 'string' } });
    return d ? toUser(d) : null;
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
