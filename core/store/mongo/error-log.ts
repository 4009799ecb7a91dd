// The accounts' error log (ErrorLogRepo). Numeric ids come from the `error_log` sequence, a block
// of them per batch; an account's entries are read newest first by (user_id, _id). `user_id: null`
// matches the anonymous tokens' entries (stored with user_id null).
import type { Filter } from 'mongodb';
import type { ErrorLogFilter, ErrorLogRecord, ErrorLogRepo, ErrorLogScope, Page } from '../types.js';
import { escapeRegex, toErrorLog, type Cols, type ErrorLogDoc } from './docs.js';

function filterOf(scope: ErrorLogScope, f: ErrorLogFilter = {}): Filter<ErrorLogDoc> {
  const q: Filter<ErrorLogDoc> = {};
  if (!scope.all) q.user_id = scope.userId;
  if (f.source) q.source = f.source;
  if (f.unread) q.read = false;
  if (f.tokenId !== undefined) q.token_id = f.tokenId;
  if (f.scheduleId !== undefined) q.schedule_id = f.scheduleId;
  if (f.search) {
    const re = { $regex: escapeRegex(f.search), $options: 'i' };
    q.$or = [{ message: re }, { action_type: re }, { action_id: re }, { token_id: re }, { schedule_name: re }];
  }
  return q;
}

export class MongoErrorLogRepo implements ErrorLogRepo {
  constructor(private readonly c: Cols) {}

  async add(entries: Array<Omit<ErrorLogRecord, 'id'>>, keep: number): Promise<void> {
    if (!entries.length) return;
    // One sequence step for the whole batch: ids last-n+1 .. last, in the entries' order.
    const seq = await this.c.sequences.findOneAndUpdate({ _id: 'error_log' }, { $inc: { seq: entries.length } }, { upsert: true, returnDocument: 'after' });
    const last = seq!.seq;
    const first = last - entries.length + 1;
    await this.c.errorLog.insertMany(entries.map((e, i) => ({ _id: first + i, ...e, read: !!e.read })));
    for (const userId of new Set(entries.map((e) => e.user_id))) {
      const cut = await this.c.errorLog
        .find({ user_id: userId }, { projection: { _id: 1 } })
        .sort({ _id: -1 })
        .skip(Math.max(0, Math.floor(keep)))
        .limit(1)
        .toArray();
      if (cut[0]) await this.c.errorLog.deleteMany({ user_id: userId, _id: { $lte: cut[0]._id } });
    }
  }

  async list(scope: ErrorLogScope, filter: ErrorLogFilter, page: number, perPage: number): Promise<Page<ErrorLogRecord>> {
    const q = filterOf(scope, filter);
    const limit = Math.floor(perPage);
    const [docs, total] = await Promise.all([
      limit > 0
        ? this.c.errorLog
            .find(q)
            .sort({ _id: -1 })
            .skip((Math.max(1, Math.floor(page)) - 1) * limit)
            .limit(limit)
            .toArray()
        : Promise.resolve([] as ErrorLogDoc[]),
      this.c.errorLog.countDocuments(q),
    ]);
    return { items: docs.map(toErrorLog), total };
  }

  async unread(scope: ErrorLogScope): Promise<number> {
    return this.c.errorLog.countDocuments(filterOf(scope, { unread: true }));
  }

  async markRead(scope: ErrorLogScope, ids: number[] | null, upTo?: number): Promise<number> {
    if (ids && !ids.length) return 0;
    const q = filterOf(scope, { unread: true });
    const idCond: Record<string, unknown> = {};
    if (upTo !== undefined) idCond.$lte = upTo;
    if (ids) idCond.$in = ids;
    if (Object.keys(idCond).length) q._id = idCond;
    return (await this.c.errorLog.updateMany(q, { $set: { read: true } })).modifiedCount;
  }
}
