// Workflow documents: one per token (`_id` = token uuid), stored as JSON text so that parameter
// names holding `.` or `$` never reach MongoDB as field names. Deleted with their token
// (MongoTokenRepo.delete).
import type { Millis, WorkflowRecord, WorkflowRepo } from '../types.js';
import { isDuplicateKey, toWorkflow, toWorkflowDoc, type Cols } from './docs.js';

export class MongoWorkflowRepo implements WorkflowRepo {
  constructor(private readonly c: Cols) {}

  async getForToken(tokenId: string): Promise<WorkflowRecord | null> {
    const d = await this.c.workflows.findOne({ _id: tokenId });
    return d ? toWorkflow(d) : null;
  }

  async putForToken(tokenId: string, document: Record<string, unknown>, now: Millis): Promise<void> {
    const doc = toWorkflowDoc(tokenId, document, now);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.c.workflows.replaceOne({ _id: tokenId }, doc, { upsert: true });
        return;
      } catch (err) {
        // Two concurrent upserts of the same token: one insert wins, the other retries as a replace.
        if (attempt < 2 && isDuplicateKey(err)) continue;
        throw err;
      }
    }
  }

  async deleteForToken(tokenId: string): Promise<void> {
    await this.c.workflows.deleteOne({ _id: tokenId });
  }

  async after(afterTokenId: string | null, limit: number): Promise<WorkflowRecord[]> {
    const filter = afterTokenId === null ? {} : { _id: { $gt: afterTokenId } };
    return (await this.c.workflows.find(filter).sort({ _id: 1 }).limit(limit).toArray()).map(toWorkflow);
  }

  async replaceDocument(tokenId: string, expected: Record<string, unknown>, document: Record<string, unknown>): Promise<boolean> {
    // Documents are stored as JSON.stringify text, so equal documents have equal text.
    const r = await this.c.workflows.updateOne({ _id: tokenId, document: JSON.stringify(expected) }, { $set: { document: JSON.stringify(document) } });
    return r.matchedCount > 0;
  }
}
