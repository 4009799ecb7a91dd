// Schedules, their run logs and users' notification settings. Numeric ids come from the
// `sequences` collection, like groups'. The workflow document is kept as JSON text: its keys (step
// parameters, header names) may hold `.` or start with `$`.
import type { Collection, Db } from 'mongodb';
import type { NewSchedule, NewScheduleLog, NotificationSettings, Page, ScheduleListFilter, ScheduleLogRecord, ScheduleRecord, ScheduleRepo } from '../types.js';
import { nextSeq, type Cols } from './docs.js';

export interface ScheduleDoc extends Omit<ScheduleRecord, 'id' | 'document' | 'group_id'> {
  _id: number;
  document: string;
  group_id?: number | null;
}

export interface ScheduleLogDoc extends Omit<ScheduleLogRecord, 'id' | 'response_headers' | 'tls_expires_at' | 'tls_days_left' | 'tls_alert'> {
  _id: number;
  tls_expires_at?: number | null;
  tls_days_left?: number | null;
  tls_alert?: string | null;
  /** JSON text: header names are arbitrary keys. */
  response_headers: string;
}

export interface SettingsDoc extends Omit<NotificationSettings, 'user_id'> {
  _id: number;
}

// Documents written before schedules had groups and logs had TLS fields read as null.
export const toSchedule = ({ _id, document, group_id, ...rest }: ScheduleDoc): ScheduleRecord => ({ id: _id, ...rest, group_id: group_id ?? null, document: JSON.parse(document) });
export const toLog = ({ _id, response_headers, tls_expires_at, tls_days_left, tls_alert, ...rest }: ScheduleLogDoc): ScheduleLogRecord => ({
  id: _id,
  ...rest,
  response_headers: JSON.parse(response_headers),
  tls_expires_at: tls_expires_at ?? null,
  tls_days_left: tls_days_left ?? null,
  tls_alert: tls_alert ?? null,
});

export function scheduleCollections(db: Db) {
  return {
    schedules: db.collection<ScheduleDoc>('schedules'),
    logs: db.collection<ScheduleLogDoc>('schedule_logs'),
    settings: db.collection<SettingsDoc>('notification_settings'),
  };
}

export async function ensureScheduleIndexes(db: Db): Promise<void> {
  const c = scheduleCollections(db);
  await Promise.all([
    c.schedules.createIndex({ user_id: 1, _id: 1 }, { name: 'user_id' }),
    c.schedules.createIndex({ group_id: 1, _id: 1 }, { name: 'group_id', partialFilterExpression: { group_id: { $type: 'number' } } }),
    c.schedules.createIndex({ source: 1 }, { name: 'source_unique', unique: true, partialFilterExpression: { source: { $type: 'string' } } }),
    c.logs.createIndex({ schedule_id: 1, _id: 1 }, { name: 'schedule_id' }),
  ]);
}

export class MongoScheduleRepo implements ScheduleRepo {
  private readonly schedules: Collection<ScheduleDoc>;
  private readonly logs: Collection<ScheduleLogDoc>;
  private readonly settings: Collection<SettingsDoc>;

  constructor(private readonly c: Cols) {
    const cs = scheduleCollections(c.db);
    this.schedules = cs.schedules;
    this.logs = cs.logs;
    this.settings = cs.settings;
  }

  async create(s: NewSchedule): Promise<ScheduleRecord> {
    const doc: ScheduleDoc = { _id: await nextSeq(this.c, 'schedules'), ...s, group_id: s.group_id ?? null, document: JSON.stringify(s.document) };
    await this.schedules.insertOne(doc);
    return toSchedule(doc);
  }

  async get(id: number): Promise<ScheduleRecord | null> {
    const d = await this.schedules.findOne({ _id: id });
    return d ? toSchedule(d) : null;
  }

  async getBySource(source: string): Promise<ScheduleRecord | null> {
    const d = await this.schedules.findOne({ source });
    return d ? toSchedule(d) : null;
  }

  async list(f: ScheduleListFilter, page: number, perPage: number): Promise<Page<ScheduleRecord>> {
    const filter = { user_id: { $in: [...f.userIds] }, ...(f.groupIds ? { group_id: { $in: [...f.groupIds] } } : {}) };
    const [docs, total] = await Promise.all([
      this.schedules
        .find(filter)
        .sort({ _id: 1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .toArray(),
      this.schedules.countDocuments(filter),
    ]);
    return { items: docs.map(toSchedule), total };
  }

  async ids(afterId: number, limit: number): Promise<number[]> {
    const docs = await this.schedules
      .find({ _id: { $gt: afterId } }, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => d._id);
  }

  async update(id: number, document: Record<string, unknown>, now: number, groupId?: number | null): Promise<ScheduleRecord | null> {
    const set = { document: JSON.stringify(document), updated_at: now, ...(groupId !== undefined ? { group_id: groupId } : {}) };
    const d = await this.schedules.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    return d ? toSchedule(d) : null;
  }

  async clearGroup(groupId: number): Promise<void> {
    await this.schedules.updateMany({ group_id: groupId }, { $set: { group_id: null } });
  }

  async reassignOwner(fromUserId: number, toUserId: number, now: number): Promise<number> {
    const r = await this.schedules.updateMany({ user_id: fromUserId }, { $set: { user_id: toUserId, updated_at: now } });
    return r.modifiedCount;
  }

  async recordRun(id: number, at: number, status: number): Promise<void> {
    await this.schedules.updateOne({ _id: id }, { $set: { last_run_at: at, last_status: status } });
  }

  async delete(id: number): Promise<boolean> {
    const res = await this.schedules.deleteOne({ _id: id });
    await this.logs.deleteMany({ schedule_id: id });
    return res.deletedCount > 0;
  }

  async addLog(entry: NewScheduleLog, keep: number): Promise<ScheduleLogRecord> {
    const doc: ScheduleLogDoc = {
      _id: await nextSeq(this.c, 'schedule_logs'),
      ...entry,
      tls_expires_at: entry.tls_expires_at ?? null,
      tls_days_left: entry.tls_days_left ?? null,
      tls_alert: entry.tls_alert ?? null,
      response_headers: JSON.stringify(entry.response_headers),
    };
    await this.logs.insertOne(doc);
    const cut = await this.logs
      .find({ schedule_id: entry.schedule_id }, { projection: { _id: 1 } })
      .sort({ _id: -1 })
      .skip(keep)
      .limit(1)
      .next();
    if (cut) await this.logs.deleteMany({ schedule_id: entry.schedule_id, _id: { $lte: cut._id } });
    return toLog(doc);
  }

  async listLogs(scheduleId: number, opts: { sorting: 'newest' | 'oldest'; page: number; perPage: number }): Promise<Page<ScheduleLogRecord>> {
    const filter = { schedule_id: scheduleId };
    const [docs, total] = await Promise.all([
      this.logs
        .find(filter)
        .sort({ _id: opts.sorting === 'newest' ? -1 : 1 })
        .skip((opts.page - 1) * opts.perPage)
        .limit(opts.perPage)
        .toArray(),
      this.logs.countDocuments(filter),
    ]);
    return { items: docs.map(toLog), total };
  }

  async getNotificationSettings(userId: number): Promise<NotificationSettings | null> {
    const d = await this.settings.findOne({ _id: userId });
    if (!d) return null;
    const { _id, ...rest } = d;
    return { user_id: _id, ...rest };
  }

  async putNotificationSettings(s: NotificationSettings): Promise<NotificationSettings> {
    const { user_id, ...rest } = s;
    await this.settings.updateOne({ _id: user_id }, { $set: rest }, { upsert: true });
    return s;
  }
}
