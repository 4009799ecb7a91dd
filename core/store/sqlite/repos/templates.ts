import type { Database } from 'better-sqlite3';
import type { TemplateRecord, TemplateRepo } from '../../types.js';

type Row = Omit<TemplateRecord, 'variables' | 'actions'> & { variables: string; actions: string };

const toRecord = (r: Row): TemplateRecord => ({ ...r, variables: JSON.parse(r.variables), actions: JSON.parse(r.actions) });

export function sqliteTemplates(db: Database): TemplateRepo {
  const insert = db.prepare<[number, string, string, string, number, number], Row>('INSERT INTO templates (user_id, name, variables, actions, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *');
  const get = db.prepare<[number, number], Row>('SELECT * FROM templates WHERE user_id = ? AND id = ?');
  const page = db.prepare<[number, number, number], Row>('SELECT * FROM templates WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?');
  const count = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM templates WHERE user_id = ?');
  const update = db.prepare<[string | null, string | null, string | null, number, number, number], Row>(
    `UPDATE templates SET name = coalesce(?, name), variables = coalesce(?, variables), actions = coalesce(?, actions), updated_at = ?
     WHERE user_id = ? AND id = ? RETURNING *`,
  );
  const del = db.prepare('DELETE FROM templates WHERE user_id = ? AND id = ?');
  const after = db.prepare<[number, number], Row>('SELECT * FROM templates WHERE id > ? ORDER BY id LIMIT ?');
  // json() on both sides: the same JSON compares equal whatever its spacing.
  const replaceActions = db.prepare('UPDATE templates SET actions = ? WHERE id = ? AND json(actions) = json(?)');
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  return {
    async create(t) {
      return toRecord(insert.get(t.user_id, t.name, JSON.stringify(t.variables), JSON.stringify(t.actions), t.created_at, t.updated_at)!);
    },
    async get(userId, id) {
      const r = get.get(userId, id);
      return r ? toRecord(r) : null;
    },
    async list(userId, opts) {
      return { items: page.all(userId, opts.perPage, (opts.page - 1) * opts.perPage).map(toRecord), total: count.get(userId)!.n };
    },
    async update(userId, id, patch, now) {
      const r = update.get(patch.name ?? null, json(patch.variables), json(patch.actions), now, userId, id);
      return r ? toRecord(r) : null;
    },
    async delete(userId, id) {
      return del.run(userId, id).changes > 0;
    },
    async after(afterId, limit) {
      return after.all(afterId, limit).map(toRecord);
    },
    async replaceActions(id, expected, actions) {
      return replaceActions.run(JSON.stringify(actions), id, JSON.stringify(expected)).changes > 0;
    },
  };
}
