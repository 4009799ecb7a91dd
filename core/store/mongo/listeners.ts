// Captures waiting for a set-response. One document per waiting capture (`_id` = request uuid), so
// the process that receives the PUT need not be the one holding the connection. Listeners are
// closed by their capture; the TTL index on `expires_at` (deadline + 1 minute) reaps any left open,
// and so does `sweep` (the clean-up job) on servers without a TTL monitor.
import type { ListenerRepo, Millis, SetResponse } from '../types.js';
import { decodeSetResponse, encodeSetResponse, isDuplicateKey, toListenerDoc, type Cols } from './docs.js';

export class MongoListenerRepo implements ListenerRepo {
  constructor(private readonly c: Cols) {}

  async open(requestUuid: string, tokenId: string, deadline: Millis): Promise<void> {
    const doc = toListenerDoc(requestUuid, tokenId, deadline);
    // Insert or replace, like SQLite's INSERT OR REPLACE: a reopened listener starts unanswered.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.c.listeners.replaceOne({ _id: requestUuid }, doc, { upsert: true });
        return;
      } catch (err) {
        // Two concurrent upserts of the same id: one insert wins, the other retries as a replace.
        if (attempt < 2 && isDuplicateKey(err)) continue;
        throw err;
      }
    }
  }

  async respond(tokenId: string, requestUuid: string, response: SetResponse, now: Millis): Promise<boolean> {
    // One conditional write: only a waiting, unanswered listener of this token whose deadline has
    // not passed takes the response, so of two concurrent responses exactly one succeeds.
    const res = await this.c.listeners.updateOne({ _id: requestUuid, token_id: tokenId, response: null, deadline: { $gt: now } }, { $set: { response: encodeSetResponse(response) } });
    return res.matchedCount > 0;
  }

  async poll(requestUuid: string): Promise<SetResponse | null> {
    const d = await this.c.listeners.findOne({ _id: requestUuid }, { projection: { response: 1 } });
    return decodeSetResponse(d?.response);
  }

  async close(requestUuid: string): Promise<void> {
    await this.c.listeners.deleteOne({ _id: requestUuid });
  }

  async sweep(before: Millis): Promise<number> {
    return (await this.c.listeners.deleteMany({ deadline: { $lt: before } })).deletedCount;
  }
}
