import type { Database } from 'better-sqlite3';
import type { NewScheduleLog, NotificationSettings, ScheduleListFilter, ScheduleLogRecord, ScheduleRecord, ScheduleRepo } from '../../types.js';

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
  const insert = db.prepare<[number, number | null, string, string | null, number | null, number | null, number, number], ScheduleRow>(
    `INSERT INTO schedules (user_id, group_id, document, source, last_run_at, last_status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const byId = db.prepare<[number], ScheduleRow>('SELECT * FROM schedules WHERE id = ?');
  const bySource = db.prepare<[string], ScheduleRow>('SELECT * FROM schedules WHERE source = ?');
  /** The WHERE clause of a list, with its parameters (bound, never spliced). */
  const where = (f: ScheduleListFilter): [string, number[]] => {
    const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    let sql = `user_id IN (${marks(f.userIds.length)})`;
    if (f.groupIds) sql += ` AND group_id IN (${marks(f.groupIds.length)})`;
    return [sql, [...f.userIds, ...(f.groupIds ?? [])]];
  };
  const ids = db.prepare<[number, number], { id: number }>('SELECT id FROM schedules WHERE id > ? ORDER BY id LIMIT ?');
  const update = db.prepare<[string, number, number], ScheduleRow>('UPDATE schedules SET document = ?, updated_at = ? WHERE id = ? RETURNING *');
  const updateWithGroup = db.prepare<[string, number, number | null, number], ScheduleRow>('UPDATE schedules SET document = ?, updated_at = ?, group_id = ? WHERE id = ? RETURNING *');
  const clearGroup = db.prepare('UPDATE schedules SET group_id = NULL WHERE group_id = ?');
  const reassignOwner = db.prepare<[number, number, number]>('UPDATE schedules SET user_id = ?, updated_at = ? WHERE user_id = ?');
  const recordRun = db.prepare('UPDATE schedules SET last_run_at = ?, last_status = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM schedules WHERE id = ?');
  const addLog = db.prepare<[number, number, string, string, number, string | null, number | null, number | null, string | null, number, number], LogRow>(
    `INSERT INTO schedule_logs (schedule_id, response_status, response_headers, response_body, time, error, tls_expires_at, tls_days_left, tls_alert, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const trim = db.prepare(`DELETE FROM schedule_logs WHERE schedule_id = ? AND id <= (SELECT id FROM schedule_logs WHERE schedule_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`);
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
  const addAndTrim = db.transaction((e: NewScheduleLog, keep: number) => {
    const row = addLog.get(
      e.schedule_id,
      e.response_status,
      JSON.stringify(e.response_headers),
      e.response_body,
      e.time,
      e.error,
      e.tls_expires_at ?? null,
      e.tls_days_left ?? null,
      e.tls_alert ?? null,
      e.created_at,
      e.updated_at,
    )!;
    trim.run(e.schedule_id, e.schedule_id, keep);
    return row;
  });

  return {
    async create(s) {
      return toSchedule(insert.get(s.user_id, s.group_id ?? null, JSON.stringify(s.document), s.source, s.last_run_at, s.last_status, s.created_at, s.updated_at)!);
    },
    async get(id) {
      const r = byId.get(id);
      return r ? toSchedule(r) : null;
    },
    async getBySource(source) {
      const r = bySource.get(source);
      return r ? toSchedule(r) : null;
    },
    async list(filter, p, perPage) {
      if (filter.userIds.length === 0 || filter.groupIds?.length === 0) return { items: [], total: 0 };
      const [sql, params] = where(filter);
      const items = db.prepare<unknown[], ScheduleRow>(`SELECT * FROM schedules WHERE ${sql} ORDER BY id LIMIT ? OFFSET ?`).all(...params, perPage, (p - 1) * perPage);
      const total = db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM schedules WHERE ${sql}`).get(...params)!.n;
      return { items: items.map(toSchedule), total };
    },
    async ids(afterId, limit) {
      return ids.all(afterId, limit).map((r) => r.id);
    },
    async update(id, document, now, groupId) {
      const r = groupId === undefined ? update.get(JSON.stringify(document), now, id) : updateWithGroup.get(JSON.stringify(document), now, groupId, id);
      return r ? toSchedule(r) : null;
    },
    async clearGroup(groupId) {
      clearGroup.run(groupId);
    },
    async reassignOwner(fromUserId, toUserId, now) {
      return reassignOwner.run(toUserId, now, fromUserId).changes;
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
