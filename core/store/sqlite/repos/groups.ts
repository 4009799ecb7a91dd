import type { Database } from 'better-sqlite3';
import type { GroupRecord, GroupRepo } from '../../types.js';

export function sqliteGroups(db: Database): GroupRepo {
  const insert = db.prepare('INSERT INTO groups (user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?)');
  const byId = db.prepare<[number], GroupRecord>('SELECT * FROM groups WHERE id = ?');
  const page = db.prepare<[number, number, number], GroupRecord>('SELECT * FROM groups WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?');
  const count = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM groups WHERE user_id = ?');
  const rename = db.prepare('UPDATE groups SET name = ?, updated_at = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM groups WHERE id = ?');
  return {
    async create(g) {
      const info = insert.run(g.user_id, g.name, g.created_at, g.updated_at);
      return { ...g, id: Number(info.lastInsertRowid) };
    },
    async get(id) {
      return byId.get(id) ?? null;
    },
    async list(userId, p, perPage) {
      return { items: page.all(userId, perPage, (p - 1) * perPage), total: count.get(userId)!.n };
    },
    async update(id, name, now) {
      rename.run(name, now, id);
      return byId.get(id) ?? null;
    },
    async delete(id) {
      return del.run(id).changes > 0;
    },
  };
}
