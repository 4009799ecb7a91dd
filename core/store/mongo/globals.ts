// Global variables, per owner. Numeric ids come from the `sequences` collection; a unique index on
// (owner, name) keeps one variable per name, so `set` updates in place (keeping id and created_at)
// and inserts only when the name is new.
import type { GlobalVariableRecord, GlobalVariableRepo, Millis, Page } from '../types.js';
import { escapeRegex, isDuplicateKey, nextSeq, toGlobalVariable, type Cols, type GlobalVariableDoc } from './docs.js';

export class MongoGlobalVariableRepo implements GlobalVariableRepo {
  constructor(private readonly c: Cols) {}

  async get(owner: string, name: string): Promise<GlobalVariableRecord | null> {
    const d = await this.c.globals.findOne({ owner, name });
    return d ? toGlobalVariable(d) : null;
  }

  async getById(owner: string, id: number): Promise<GlobalVariableRecord | null> {
    const d = await this.c.globals.findOne({ _id: id, owner });
    return d ? toGlobalVariable(d) : null;
  }

  async set(owner: string, name: string, value: string, now: Millis): Promise<GlobalVariableRecord> {
    for (let attempt = 0; ; attempt++) {
      const updated = await this.c.globals.findOneAndUpdate({ owner, name }, { $set: { value, updated_at: now } }, { returnDocument: 'after' });
      if (updated) return toGlobalVariable(updated);
      const id = await nextSeq(this.c, 'global_variables');
      const rec: GlobalVariableRecord = { id, owner, name, value, created_at: now, updated_at: now };
      try {
        await this.c.globals.insertOne({ _id: id, ...rec });
        return rec;
      } catch (err) {
        // A concurrent set created the name first: update that one instead.
        if (attempt < 2 && isDuplicateKey(err)) continue;
        throw err;
      }
    }
  }

  async list(owner: string, opts: { page: number; perPage: number; search?: string }): Promise<Page<GlobalVariableRecord>> {
    // Case-insensitive substring of the name, like SQLite's instr(lower(name), lower(?)).
    const filter = opts.search ? { owner, name: { $regex: escapeRegex(opts.search), $options: 'i' } } : { owner };
    const limit = Math.floor(opts.perPage);
    const p = Math.max(1, Math.floor(opts.page));
    const [docs, total] = await Promise.all([
      limit > 0
        ? this.c.globals
            .find(filter)
            .sort({ _id: 1 })
            .skip((p - 1) * limit)
            .limit(limit)
            .toArray()
        : Promise.resolve([] as GlobalVariableDoc[]),
      this.c.globals.countDocuments(filter),
    ]);
    return { items: docs.map(toGlobalVariable), total };
  }

  async all(owner: string): Promise<Record<string, string>> {
    const docs = await this.c.globals.find({ owner }, { projection: { name: 1, value: 1 } }).toArray();
    return Object.fromEntries(docs.map((d) => [d.name, d.value]));
  }

  async delete(owner: string, id: number): Promise<boolean> {
    const res = await this.c.globals.deleteOne({ _id: id, owner });
    return res.deletedCount > 0;
  }
}
