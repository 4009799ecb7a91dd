import type { Database } from 'better-sqlite3';
import type { GlobalVariableRecord, GlobalVariableRepo } from '../../types.js';

export function sqliteGlobals(db: Database): GlobalVariableRepo {
  const get = db.prepare<[string, string], GlobalVariableRecord>('SELECT * FROM global_variables WHERE owner = ? AND name = ?');
  const byId = db.prepare<[string, number], GlobalVariableRecord>('SELECT * FROM global_variables WHERE owner = ? AND id = ?');
  const set = db.prepare<[string, string, string, number, number], GlobalVariableRecord>(
    `INSERT INTO global_variables (owner, name, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (owner, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at RETURNING *`,
  );
  const page = db.prepare<[string, string, number, number], GlobalVariableRecord>(`SELECT * FROM global_variables WHERE owner = ? AND instr(lower(name), lower(?)) > 0 ORDER BY id LIMIT ? OFFSET ?`);
  const count = db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM global_variables WHERE owner = ? AND instr(lower(name), lower(?)) > 0');
  const all = db.prepare<[string], { name: string; value: string }>('SELECT name, value FROM global_variables WHERE owner = ?');
  const del = db.prepare('DELETE FROM global_variables WHERE owner = ? AND id = ?');
  return {
    async get(owner, name) {
      return get.get(owner, name) ?? null;
    },
    async getById(owner, id) {
      return byId.get(owner, id) ?? null;
    },
    async set(owner, name, value, now) {
      return set.get(owner, name, value, now, now)!;
    },
    async list(owner, opts) {
      const search = opts.search ?? '';
      return { items: page.all(owner, search, opts.perPage, (opts.page - 1) * opts.perPage), total: count.get(owner, search)!.n };
    },
    async all(owner) {
      return Object.fromEntries(all.all(owner).map((r) => [r.name, r.value]));
    },
    async delete(owner, id) {
      return del.run(owner, id).changes > 0;
    },
  };
}
