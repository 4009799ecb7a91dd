import type { Database } from 'better-sqlite3';
import type { ActionFailureRepo } from '../../types.js';

export function sqliteActionFailures(db: Database): ActionFailureRepo {
  const fail = db.prepare<[string, string, number], { count: number }>(
    `INSERT INTO action_failures (action_id, token_id, count, updated_at) VALUES (?, ?, 1, ?)
     ON CONFLICT (action_id) DO UPDATE SET count = count + 1, updated_at = excluded.updated_at RETURNING count`,
  );
  const reset = db.prepare('DELETE FROM action_failures WHERE action_id = ?');
  const failing = db.prepare<[], { action_id: string }>('SELECT action_id FROM action_failures');
  const resetAll = db.transaction((ids: string[]) => ids.forEach((id) => reset.run(id)));
  return {
    async fail(actionId, tokenId, now) {
      return fail.get(actionId, tokenId, now)!.count;
    },
    async reset(actionIds) {
      if (actionIds.length) resetAll(actionIds);
    },
    async failing() {
      return failing.all().map((r) => r.action_id);
    },
  };
}
