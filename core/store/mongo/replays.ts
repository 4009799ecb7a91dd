// Replays (ReplayRepo); `_id` is the replay id. Deleting a token deletes its replays (tokens.ts).
import type { ReplayRecord, ReplayRepo } from '../types.js';
import type { Cols, ReplayDoc } from './docs.js';

function toRecord(d: ReplayDoc): ReplayRecord {
  const { _id, ...rest } = d;
  return { id: _id, ...rest };
}

export class MongoReplayRepo implements ReplayRepo {
  constructor(private readonly c: Cols) {}

  async create(r: ReplayRecord, keep: number): Promise<void> {
    const { id, ...rest } = r;
    await this.c.replays.insertOne({ _id: id, ...rest });
    const old = await this.c.replays
      .find({ token_id: r.token_id }, { projection: { _id: 1 } })
      .sort({ created_at: -1, _id: -1 })
      .skip(Math.max(1, Math.floor(keep)))
      .toArray();
    if (old.length) await this.c.replays.deleteMany({ _id: { $in: old.map((d) => d._id) } });
  }

  async get(tokenId: string, id: string): Promise<ReplayRecord | null> {
    const d = await this.c.replays.findOne({ _id: id, token_id: tokenId });
    return d ? toRecord(d) : null;
  }

  async list(tokenId: string, limit: number): Promise<ReplayRecord[]> {
    return (await this.c.replays.find({ token_id: tokenId }).sort({ created_at: -1, _id: -1 }).limit(limit).toArray()).map(toRecord);
  }

  async update(id: string, patch: Partial<ReplayRecord>): Promise<ReplayRecord | null> {
    const { id: _ignored, ...set } = patch;
    const d = Object.keys(set).length ? await this.c.replays.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }) : await this.c.replays.findOne({ _id: id });
    return d ? toRecord(d) : null;
  }
}
