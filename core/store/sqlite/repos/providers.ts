import type { Database } from 'better-sqlite3';
import type { ProviderRecord, ProviderRepo } from '../../types.js';

type Row = Omit<ProviderRecord, 'settings'> & { settings: string };

const toRecord = (r: Row): ProviderRecord => ({ ...r, settings: JSON.parse(r.settings) as Record<string, unknown> });

export function sqliteProviders(db: Database): ProviderRepo {
  const insert = db.prepare('INSERT INTO providers (id, user_id, type, name, settings, secret, created_at, updated_at) VALUES (@id, @user_id, @type, @name, @settings, @secret, @created_at, @updated_at)');
  const get = db.prepare<[number, string], Row>('SELECT * FROM providers WHERE user_id = ? AND id = ?');
  const page = db.prepare<[number, string | null, string | null, number, number], Row>('SELECT * FROM providers WHERE user_id = ? AND (? IS NULL OR type = ?) ORDER BY created_at, id LIMIT ? OFFSET ?');
  const count = db.prepare<[number, string | null, string | null], { n: number }>('SELECT count(*) AS n FROM providers WHERE user_id = ? AND (? IS NULL OR type = ?)');
  const update = db.prepare<[string | null, string | null, string | null, number, number, string], Row>(
    `UPDATE providers SET name = coalesce(?, name), settings = coalesce(?, settings), secret = coalesce(?, secret), updated_at = ?
     WHERE user_id = ? AND id = ? RETURNING *`,
  );
  const del = db.prepare('DELETE FROM providers WHERE user_id = ? AND id = ?');
  const after = db.prepare<[string, number], Row>('SELECT * FROM providers WHERE id > ? ORDER BY id LIMIT ?');
  const replaceSecret = db.prepare('UPDATE providers SET secret = ? WHERE id = ? AND secret = ?');
  return {
    async create(p) {
      insert.run({ ...p, settings: JSON.stringify(p.settings) });
      return p;
    },
    async get(userId, id) {
      const r = get.get(userId, id);
      return r ? toRecord(r) : null;
    },
    async list(userId, opts) {
      const type = opts.type ?? null;
      const items = page.all(userId, type, type, opts.perPage, (opts.page - 1) * opts.perPage).map(toRecord);
      return { items, total: count.get(userId, type, type)!.n };
    },
    async update(userId, id, patch, now) {
      const r = update.get(patch.name ?? null, patch.settings ? JSON.stringify(patch.settings) : null, patch.secret ?? null, now, userId, id);
      return r ? toRecord(r) : null;
    },
    async delete(userId, id) {
      return del.run(userId, id).changes > 0;
    },
    async after(afterId, limit) {
      return after.all(afterId ?? '', limit).map(toRecord);
    },
    async replaceSecret(id, expected, secret) {
      return replaceSecret.run(secret, id, expected).changes > 0;
    },
  };
}
