import type { Database } from 'better-sqlite3';
import type { NotificationSettings, ScheduleLogRecord, ScheduleRecord, ScheduleRepo } from '../../types.js';

interface ScheduleRow extends Omit<ScheduleRecord, 'document'> {
  document: string;
}
interface LogRow extends Omit<ScheduleLogRecord, 'response_headers'> {
  response_headers: string;
}
interface SettingsRow extends Omit<NotificationSettings, 'email_enabled'> {
  email_enabled: number;
}

const toSchedule = (r: ScheduleRow): ScheduleRecord => ({ ...r, document: JSON.parse(r.document) });
const toLog = (r: LogRow): ScheduleLogRecord => ({ ...r, response_headers: JSON.parse(r.response_headers) });

export function sqliteSchedules(db: Database): ScheduleRepo {
  const insert = db.prepare<[number, string, string | null, number | null, number | null, number, number], ScheduleRow>(
    `INSERT INTO schedules (user_id, document, source, last_run_at, last_status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const byId = db.prepare<[number], ScheduleRow>('SELECT * FROM schedules WHERE id = ?');
  const bySource = db.prepare<[string], ScheduleRow>('SELECT * FROM schedules WHERE source = ?');
  const page = db.prepare<[number, number, number], ScheduleRow>('SELECT * FROM schedules WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?');
  const count = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM schedules WHERE user_id = ?');
  const ids = db.prepare<[number, number], { id: number }>('SELECT id FROM schedules WHERE id > ? ORDER BY id LIMIT ?');
  const update = db.prepare<[string, number, number], ScheduleRow>('UPDATE schedules SET document = ?, updated_at = ? WHERE id = ? RETURNING *');
  const recordRun = db.prepare('UPDATE schedules SET last_run_at = ?, last_status = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM schedules WHERE id = ?');
  const addLog = db.prepare<[number, number, string, string, number, string | null, number, number], LogRow>(
    `INSERT INTO schedule_logs (schedule_id, response_status, response_headers, response_body, time, error, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const trim = db.prepare(
    `DELETE FROM schedule_logs WHERE schedule_id = ? AND id <= (SELECT id FROM schedule_logs WHERE schedule_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  );
  const logsAsc = db.prepare<[number, number, number], LogRow>('SELECT * FROM schedule_logs WHERE schedule_id = ? ORDER BY id ASC LIMIT ? OFFSET ?');
  const logsDesc = db.prepare<[number, number, number], LogRow>('SELECT * FROM schedule_logs WHERE schedule_id = ? ORDER BY id DESC LIMIT ? OFFSET ?');
  const logCount = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM schedule_logs WHERE schedule_id = ?');
  const getSettings = db.prepare<[number], SettingsRow>('SELECT * FROM notification_settings WHERE user_id = ?');
  const putSettings = db.prepare<[number, string | null, number, string | null, number], SettingsRow>(
    `INSERT INTO notification_settings (user_id, email, email_enabled, webhook_url, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET email = excluded.email, email_enabled = excluded.email_enabled,
       webhook_url = excluded.webhook_url, updated_at = excluded.updated_at
     RETURNING *`,
  );
  const addAndTrim = db.transaction((e: Omit<ScheduleLogRecord, 'id'>, keep: number) => {
    const row = addLog.get(e.schedule_id, e.response_status, JSON.stringify(e.response_headers), e.response_body, e.time, e.error, e.created_at, e.updated_at)!;
    trim.run(e.schedule_id, e.schedule_id, keep);
    return row;
  });

  return {
    async create(s) {
      return toSchedule(insert.get(s.user_id, JSON.stringify(s.document), s.source, s.last_run_at, s.last_status, s.created_at, s.updated_at)!);
    },
    async get(id) {
      const r = byId.get(id);
      return r ? toSchedule(r) : null;
    },
    async getBySource(source) {
      const r = bySource.get(source);
      return r ? toSchedule(r) : null;
    },
    async list(userId, p, perPage) {
      return { items: page.all(userId, perPage, (p - 1) * perPage).map(toSchedule), total: count.get(userId)!.n };
    },
    async ids(afterId, limit) {
      return ids.all(afterId, limit).map((r) => r.id);
    },
    async update(id, document, now) {
      const r = update.get(JSON.stringify(document), now, id);
      return r ? toSchedule(r) : null;
    },
    async recordRun(id, at, status) {
      recordRun.run(at, status, id);
    },
    async delete(id) {
      return del.run(id).changes > 0;
    },
    async addLog(entry, keep) {
      return toLog(addAndTrim.immediate(entry, keep));
    },
    async listLogs(scheduleId, opts) {
      const q = opts.sorting === 'newest' ? logsDesc : logsAsc;
      return { items: q.all(scheduleId, opts.perPage, (opts.page - 1) * opts.perPage).map(toLog), total: logCount.get(scheduleId)!.n };
    },
    async getNotificationSettings(userId) {
      const r = getSettings.get(userId);
      return r ? { ...r, email_enabled: r.email_enabled === 1 } : null;
    },
    async putNotificationSettings(s) {
      const r = putSettings.get(s.user_id, s.email, s.email_enabled ? 1 : 0, s.webhook_url, s.updated_at)!;
      return { ...r, email_enabled: r.email_enabled === 1 };
    },
  };
}
