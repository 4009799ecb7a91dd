// The accounts' error log (ErrorLogRepo). Entries of one account are read newest first by
// (user_id, id); the unread count uses (user_id, read). `user_id IS ?` matches the anonymous
// tokens' entries (NULL) as well as a user's.
import type { Database } from 'better-sqlite3';
import type { ErrorLogFilter, ErrorLogRecord, ErrorLogRepo, ErrorLogScope } from '../../types.js';

type Row = Omit<ErrorLogRecord, 'read'> & { read: number };

const COLUMNS = 'user_id, source, token_id, request_id, action_id, action_type, schedule_id, schedule_name, message, read, created_at';

function toRecord(r: Row): ErrorLogRecord {
  return { ...r, read: r.read === 1 };
}

/** The WHERE clause of a scope and filter, with its bound parameters (never user text in the SQL). */
function where(scope: ErrorLogScope, filter: ErrorLogFilter = {}): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (!scope.all) {
    parts.push('user_id IS ?');
    params.push(scope.userId);
  }
  if (filter.source) {
    parts.push('source = ?');
    params.push(filter.source);
  }
  if (filter.unread) parts.push('read = 0');
  if (filter.tokenId !== undefined) {
    parts.push('token_id = ?');
    params.push(filter.tokenId);
  }
  if (filter.scheduleId !== undefined) {
    parts.push('schedule_id = ?');
    params.push(filter.scheduleId);
  }
  if (filter.search) {
    const cols = ['message', 'action_type', 'action_id', 'token_id', 'schedule_name'];
    parts.push(`(${cols.map((c) => `instr(lower(coalesce(${c}, '')), ?) > 0`).join(' OR ')})`);
    for (let i = 0; i < cols.length; i++) params.push(filter.search.toLowerCase());
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

export function sqliteErrorLog(db: Database): ErrorLogRepo {
  const insert = db.prepare(`INSERT INTO error_log (${COLUMNS}) VALUES (@user_id, @source, @token_id, @request_id, @action_id, @action_type, @schedule_id, @schedule_name, @message, @read, @created_at)`);
  const trim = db.prepare<[number | null, number | null, number]>(`DELETE FROM error_log WHERE user_id IS ? AND id <= (SELECT id FROM error_log WHERE user_id IS ? ORDER BY id DESC LIMIT 1 OFFSET ?)`);
  const addAll = db.transaction((entries: Array<Omit<ErrorLogRecord, 'id'>>, keep: number) => {
    const accounts = new Set<number | null>();
    for (const e of entries) {
      insert.run({ ...e, read: e.read ? 1 : 0 });
      accounts.add(e.user_id);
    }
    for (const a of accounts) trim.run(a, a, keep);
  });
  return {
    async add(entries, keep) {
      if (entries.length) addAll(entries, Math.max(0, Math.floor(keep)));
    },
    async list(scope, filter, page, perPage) {
      const w = where(scope, filter);
      const total = (db.prepare(`SELECT count(*) AS n FROM error_log ${w.sql}`).get(...w.params) as { n: number }).n;
      const rows = db.prepare(`SELECT id, ${COLUMNS} FROM error_log ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...w.params, perPage, (Math.max(1, page) - 1) * perPage) as Row[];
      return { items: rows.map(toRecord), total };
    },
    async unread(scope) {
      const w = where(scope, { unread: true });
      return (db.prepare(`SELECT count(*) AS n FROM error_log ${w.sql}`).get(...w.params) as { n: number }).n;
    },
    async markRead(scope, ids, upTo) {
      const w = where(scope, { unread: true });
      let sql = `UPDATE error_log SET read = 1 ${w.sql}`;
      const params = [...w.params];
      if (upTo !== undefined) {
        sql += ' AND id <= ?';
        params.push(upTo);
      }
      if (ids) {
        if (!ids.length) return 0;
        sql += ` AND id IN (${ids.map(() => '?').join(', ')})`;
        params.push(...ids);
      }
      return db.prepare(sql).run(...params).changes;
    },
  };
}
