// Failure streaks of actions; `_id` is the action's uuid.
import type { ActionFailureRepo } from '../types.js';
import type { Cols } from './docs.js';

export class MongoActionFailureRepo implements ActionFailureRepo {
  constructor(private readonly c: Cols) {}

  async fail(actionId: string, tokenId: string, now: number): Promise<number> {
    const d = await this.c.actionFailures.findOneAndUpdate({ _id: actionId }, { $inc: { count: 1 }, $set: { token_id: tokenId, updated_at: now } }, { upsert: true, returnDocument: 'after' });
    return d?.count ?? 1;
  }

  async reset(actionIds: string[]): Promise<void> {
    if (actionIds.length) await this.c.actionFailures.deleteMany({ _id: { $in: actionIds } });
  }

  async failing(): Promise<string[]> {
    return (await this.c.actionFailures.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
  }
}
