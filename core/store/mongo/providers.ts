// Providers (connected accounts), per user; `_id` is the provider's UUID.
import type { Millis, Page, ProviderRecord, ProviderRepo } from '../types.js';
import { toProvider, type Cols } from './docs.js';

export class MongoProviderRepo implements ProviderRepo {
  constructor(private readonly c: Cols) {}

  async create(p: ProviderRecord): Promise<ProviderRecord> {
    const { id, ...rest } = p;
    await this.c.providers.insertOne({ _id: id, ...rest });
    return p;
  }

  async get(userId: number, id: string): Promise<ProviderRecord | null> {
    const d = await this.c.providers.findOne({ _id: id, user_id: userId });
    return d ? toProvider(d) : null;
  }

  async list(userId: number, opts: { page: number; perPage: number; type?: string }): Promise<Page<ProviderRecord>> {
    const filter = opts.type ? { user_id: userId, type: opts.type } : { user_id: userId };
    const limit = Math.floor(opts.perPage);
    const skip = (Math.max(1, Math.floor(opts.page)) - 1) * limit;
    const [docs, total] = await Promise.all([limit > 0 ? this.c.providers.find(filter).sort({ created_at: 1, _id: 1 }).skip(skip).limit(limit).toArray() : Promise.resolve([]), this.c.providers.countDocuments(filter)]);
    return { items: docs.map(toProvider), total };
  }

  async update(userId: number, id: string, patch: Partial<Pick<ProviderRecord, 'name' | 'settings' | 'secret'>>, now: Millis): Promise<ProviderRecord | null> {
    const set: Record<string, unknown> = { updated_at: now };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.settings !== undefined) set.settings = patch.settings;
    if (patch.secret !== undefined) set.secret = patch.secret;
    const d = await this.c.providers.findOneAndUpdate({ _id: id, user_id: userId }, { $set: set }, { returnDocument: 'after' });
    return d ? toProvider(d) : null;
  }

  async delete(userId: number, id: string): Promise<boolean> {
    return (await this.c.providers.deleteOne({ _id: id, user_id: userId })).deletedCount > 0;
  }

  async after(afterId: string | null, limit: number): Promise<ProviderRecord[]> {
    const filter = afterId === null ? {} : { _id: { $gt: afterId } };
    return (await this.c.providers.find(filter).sort({ _id: 1 }).limit(limit).toArray()).map(toProvider);
  }

  async replaceSecret(id: string, expected: string, secret: string): Promise<boolean> {
    return (await this.c.providers.updateOne({ _id: id, secret: expected }, { $set: { secret } })).matchedCount > 0;
  }
}
