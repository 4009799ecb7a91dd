import type { Database } from 'better-sqlite3';
import type { WorkflowRepo } from '../types.js';

export function sqliteWorkflows(db: Database): WorkflowRepo {
  const get = db.prepare<[string], { token_id: string; document: string; updated_at: number }>('SELECT * FROM token_workflows WHERE token_id = ?');
  const put = db.prepare(
    `INSERT INTO token_workflows (token_id, document, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (token_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at`,
  );
  const del = db.prepare('DELETE FROM token_workflows WHERE token_id = ?');
  return {
    async getForToken(tokenId) {
      const r = get.get(tokenId);
      return r ? { token_id: r.token_id, document: JSON.parse(r.document), updated_at: r.updated_at } : null;
    },
    async putForToken(tokenId, document, now) {
      put.run(tokenId, JSON.stringify(document), now);
    },
    async deleteForToken(tokenId) {
      del.run(tokenId);
    },
  };
}
