// Queue Profiles per user; `_id` is the profile's UUID.
import type { QueueProfileRecord, QueueProfileRepo } from '../types.js';
import { toQueueProfile, type Cols } from './docs.js';

export class MongoQueueProfileRepo implements QueueProfileRepo {
  constructor(private readonly c: Cols) {}

  async create(p: QueueProfileRecord): Promise<QueueProfileRecord> {
    const { id, ...rest } = p;
    await this.c.queueProfiles.insertOne({ _id: id, ...rest });
    return { ...p };
  }

  async get(id: string): Promise<QueueProfileRecord | null> {
    const d = await this.c.queueProfiles.findOne({ _id: id });
    return d ? toQueueProfile(d) : null;
  }

  async list(userId: number): Promise<QueueProfileRecord[]> {
    return (await this.c.queueProfiles.find({ user_id: userId }).sort({ created_at: 1, _id: 1 }).toArray()).map(toQueueProfile);
  }

  async update(p: QueueProfileRecord): Promise<QueueProfileRecord | null> {
    const { name, initial_delay, rate_limit, rate_period, job_lifetime, updated_at } = p;
    const d = await this.c.queueProfiles.findOneAndUpdate({ _id: p.id, user_id: p.user_id }, { $set: { name, initial_delay, rate_limit, rate_period, job_lifetime, updated_at } }, { returnDocument: 'after' });
    return d ? toQueueProfile(d) : null;
  }

  async delete(userId: number, id: string): Promise<boolean> {
    return (await this.c.queueProfiles.deleteOne({ _id: id, user_id: userId })).deletedCount > 0;
  }
}
