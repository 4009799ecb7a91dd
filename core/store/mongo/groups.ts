// Token groups. Numeric ids come from the `sequences` collection, like users' and API keys'.
import type { GroupRecord, GroupRepo, Millis, Page } from '../types.js';
import { nextSeq, toGroup, type Cols, type GroupDoc } from './docs.js';

export class MongoGroupRepo implements GroupRepo {
  constructor(private readonly c: Cols) {}

  async create(g: Omit<GroupRecord, 'id'>): Promise<GroupRecord> {
    const id = await nextSeq(this.c, 'groups');
    const rec: GroupRecord = { id, user_id: g.user_id, name: g.name, created_at: g.created_at, updated_at: g.updated_at };
    await this.c.groups.insertOne({ _id: id, ...rec });
    return rec;
  }

  async get(id: number): Promise<GroupRecord | null> {
    const d = await this.c.groups.findOne({ _id: id });
    return d ? toGroup(d) : null;
  }

  async list(userId: number, page: number, perPage: number): Promise<Page<GroupRecord>> {
    const filter = { user_id: userId };
    const limit = Math.floor(perPage);
    const p = Math.max(1, Math.floor(page));
    const [docs, total] = await Promise.all([
      limit > 0
        ? this.c.groups
            .find(filter)
            .sort({ _id: 1 })
            .skip((p - 1) * limit)
            .limit(limit)
            .toArray()
        : Promise.resolve([] as GroupDoc[]),
      this.c.groups.countDocuments(filter),
    ]);
    return { items: docs.map(toGroup), total };
  }

  async update(id: number, name: string, now: Millis): Promise<GroupRecord | null> {
    const d = await this.c.groups.findOneAndUpdate({ _id: id }, { $set: { name, updated_at: now } }, { returnDocument: 'after' });
    return d ? toGroup(d) : null;
  }

  /** Deletes the group only; the caller clears the tokens' group_id (TokenRepo.clearGroup). */
  async delete(id: number): Promise<boolean> {
    const res = await this.c.groups.deleteOne({ _id: id });
    return res.deletedCount > 0;
  }
}
