// Hosted databases' metadata, per user; `_id` is the database's UUID (its tables live in PostgreSQL).
import type { DatabaseRecord, DatabaseRepo, Millis, Page } from '../types.js';
import { toDatabase, type Cols } from './docs.js';

export class MongoDatabaseRepo implements DatabaseRepo {
  constructor(private readonly c: Cols) {}

  async create(d: DatabaseRecord): Promise<DatabaseRecord> {
    const { id, ...rest } = d;
    await this.c.databases.insertOne({ _id: id, ...rest });
    return { ...d };
  }

  async get(userId: number, id: string): Promise<DatabaseRecord | null> {
    const d = await this.c.databases.findOne({ _id: id, user_id: userId });
    return d ? toDatabase(d) : null;
  }

  async findByName(userId: number, name: string): Promise<DatabaseRecord | null> {
    const d = await this.c.databases.find({ user_id: userId, name }).sort({ created_at: 1, _id: 1 }).limit(1).next();
    return d ? toDatabase(d) : null;
  }

  async list(userId: number, opts: { page: number; perPage: number }): Promise<Page<DatabaseRecord>> {
    const filter = { user_id: userId };
    const limit = Math.floor(opts.perPage);
    const skip = (Math.max(1, Math.floor(opts.page)) - 1) * limit;
    const [docs, total] = await Promise.all([limit > 0 ? this.c.databases.find(filter).sort({ created_at: 1, _id: 1 }).skip(skip).limit(limit).toArray() : Promise.resolve([]), this.c.databases.countDocuments(filter)]);
    return { items: docs.map(toDatabase), total };
  }

  async rename(userId: number, id: string, name: string, now: Millis): Promise<DatabaseRecord | null> {
    const d = await this.c.databases.findOneAndUpdate({ _id: id, user_id: userId }, { $set: { name, updated_at: now } }, { returnDocument: 'after' });
    return d ? toDatabase(d) : null;
  }

  async delete(userId: number, id: string): Promise<boolean> {
    return (await this.c.databases.deleteOne({ _id: id, user_id: userId })).deletedCount > 0;
  }
}
