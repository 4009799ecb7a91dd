import type { Database } from 'better-sqlite3';
import type { QueueProfileRecord, QueueProfileRepo } from '../../types.js';

export function sqliteQueueProfiles(db: Database): QueueProfileRepo {
  const insert = db.prepare(
    'INSERT INTO queue_profiles (id, user_id, name, initial_delay, rate_limit, rate_period, job_lifetime, created_at, updated_at) VALUES (@id, @user_id, @name, @initial_delay, @rate_limit, @rate_period, @job_lifetime, @created_at, @updated_at)',
  );
  const get = db.prepare<[string], QueueProfileRecord>('SELECT * FROM queue_profiles WHERE id = ?');
  const list = db.prepare<[number], QueueProfileRecord>('SELECT * FROM queue_profiles WHERE user_id = ? ORDER BY created_at, id');
  const update = db.prepare<QueueProfileRecord, QueueProfileRecord>(
    'UPDATE queue_profiles SET name = @name, initial_delay = @initial_delay, rate_limit = @rate_limit, rate_period = @rate_period, job_lifetime = @job_lifetime, updated_at = @updated_at WHERE id = @id AND user_id = @user_id RETURNING *',
  );
  const del = db.prepare('DELETE FROM queue_profiles WHERE user_id = ? AND id = ?');
  return {
    async create(p) {
      insert.run(p);
      return { ...p };
    },
    async get(id) {
      return get.get(id) ?? null;
    },
    async list(userId) {
      return list.all(userId);
    },
    async update(p) {
      return update.get(p) ?? null;
    },
    async delete(userId, id) {
      return del.run(userId, id).changes > 0;
    },
  };
}
