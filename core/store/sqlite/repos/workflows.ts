import type { Database } from 'better-sqlite3';
import type { WorkflowRecord, WorkflowRepo } from '../../types.js';

type Row = { token_id: string; document: string; updated_at: number };

const toRecord = (r: Row): WorkflowRecord => ({ token_id: r.token_id, document: JSON.parse(r.document), updated_at: r.updated_at });

export function sqliteWorkflows(db: Database): WorkflowRepo {
  const get = db.prepare<[string], Row>('SELECT * FROM token_workflows WHERE token_id = ?');
  const put = db.prepare(
    `INSERT INTO token_workflows (token_id, document, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (token_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at`,
  );
  const del = db.prepare('DELETE FROM token_workflows WHERE token_id = ?');
  const after = db.prepare<[string, number], Row>('SELECT * FROM token_workflows WHERE token_id > ? ORDER BY token_id LIMIT ?');
  // json() on both sides: the same JSON compares equal whatever its spacing.
  const replace = db.prepare('UPDATE token_workflows SET document = ? WHERE token_id = ? AND json(document) = json(?)');
  return {
    async getForToken(tokenId) {
      const r = get.get(tokenId);
      return r ? toRecord(r) : null;
    },
    async putForToken(tokenId, document, now) {
      put.run(tokenId, JSON.stringify(document), now);
    },
    async deleteForToken(tokenId) {
      del.run(tokenId);
    },
    async after(afterTokenId, limit) {
      return after.all(afterTokenId ?? '', limit).map(toRecord);
    },
    async replaceDocument(tokenId, expected, document) {
      return replace.run(JSON.stringify(document), tokenId, JSON.stringify(expected)).changes > 0;
    },
  };
}
