// Action templates, per user; numeric ids from the `sequences` collection.
import type { Millis, Page, TemplateRecord, TemplateRepo } from '../types.js';
import { nextSeq, toTemplate, type Cols } from './docs.js';

export class MongoTemplateRepo implements TemplateRepo {
  constructor(private readonly c: Cols) {}

  async create(t: Omit<TemplateRecord, 'id'>): Promise<TemplateRecord> {
    const id = await nextSeq(this.c, 'templates');
    await this.c.templates.insertOne({ _id: id, id, ...t });
    return { id, ...t };
  }

  async get(userId: number, id: number): Promise<TemplateRecord | null> {
    const d = await this.c.templates.findOne({ _id: id, user_id: userId });
    return d ? toTemplate(d) : null;
  }

  async list(userId: number, opts: { page: number; perPage: number }): Promise<Page<TemplateRecord>> {
    const limit = Math.floor(opts.perPage);
    const skip = (Math.max(1, Math.floor(opts.page)) - 1) * limit;
    const [docs, total] = await Promise.all([
      limit > 0 ? this.c.templates.find({ user_id: userId }).sort({ _id: 1 }).skip(skip).limit(limit).toArray() : Promise.resolve([]),
      this.c.templates.countDocuments({ user_id: userId }),
    ]);
    return { items: docs.map(toTemplate), total };
  }

  async update(userId: number, id: number, patch: Partial<Pick<TemplateRecord, 'name' | 'variables' | 'actions'>>, now: Millis): Promise<TemplateRecord | null> {
    const set: Record<string, unknown> = { updated_at: now };
    for (const k of ['name', 'variables', 'actions'] as const) if (patch[k] !== undefined) set[k] = patch[k];
    const d = await this.c.templates.findOneAndUpdate({ _id: id, user_id: userId }, { $set: set }, { returnDocument: 'after' });
    return d ? toTemplate(d) : null;
  }

  async delete(userId: number, id: number): Promise<boolean> {
    return (await this.c.templates.deleteOne({ _id: id, user_id: userId })).deletedCount > 0;
  }

  async after(afterId: number, limit: number): Promise<TemplateRecord[]> {
    return (
      await this.c.templates
        .find({ _id: { $gt: afterId } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray()
    ).map(toTemplate);
  }

  async replaceActions(id: number, expected: TemplateRecord['actions'], actions: TemplateRecord['actions']): Promise<boolean> {
    // An array in a filter matches only an equal array (the same steps, fields in the same order).
    return (await this.c.templates.updateOne({ _id: id, actions: expected }, { $set: { actions } })).matchedCount > 0;
  }
}
