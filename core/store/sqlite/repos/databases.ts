import type { Database } from 'better-sqlite3';
import type { DatabaseRecord, DatabaseRepo } from '../../types.js';

export function sqliteDatabases(db: Database): DatabaseRepo {
  const insert = db.prepare('INSERT INTO databases (id, user_id, name, created_at, updated_at) VALUES (@id, @user_id, @name, @created_at, @updated_at)');
  const get = db.prepare<[number, string], DatabaseRecord>('SELECT * FROM databases WHERE user_id = ? AND id = ?');
  const byName = db.prepare<[number, string], DatabaseRecord>('SELECT * FROM databases WHERE user_id = ? AND name = ? ORDER BY created_at, id LIMIT 1');
  const page = db.prepare<[number, number, number], DatabaseRecord>('SELECT * FROM databases WHERE user_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?');
  const count = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM databases WHERE user_id = ?');
  const rename = db.prepare<[string, number, number, string], DatabaseRecord>('UPDATE databases SET name = ?, updated_at = ? WHERE user_id = ? AND id = ? RETURNING *');
  const del = db.prepare('DELETE FROM databases WHERE user_id = ? AND id = ?');
  return {
    async create(d) {
      insert.run(d);
      return { ...d };
    },
    async get(userId, id) {
      return get.get(userId, id) ?? null;
    },
    async findByName(userId, name) {
      return byName.get(userId, name) ?? null;
    },
    async list(userId, opts) {
      const items = page.all(userId, opts.perPage, (opts.page - 1) * opts.perPage);
      return { items, total: count.get(userId)!.n };
    },
    async rename(userId, id, name, now) {
      return rename.get(name, now, userId, id) ?? null;
    },
    async delete(userId, id) {
      return del.run(userId, id).changes > 0;
    },
  };
}
