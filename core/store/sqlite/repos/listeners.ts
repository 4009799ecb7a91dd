import type { Database } from 'better-sqlite3';
import type { ListenerRepo, SetResponse } from '../../types.js';

export function sqliteListeners(db: Database): ListenerRepo {
  const open = db.prepare('INSERT OR REPLACE INTO listeners (request_uuid, token_id, deadline, response) VALUES (?, ?, ?, NULL)');
  const respond = db.prepare('UPDATE listeners SET response = ? WHERE token_id = ? AND request_uuid = ? AND response IS NULL AND deadline > ?');
  const poll = db.prepare<[string], { response: string | null }>('SELECT response FROM listeners WHERE request_uuid = ?');
  const close = db.prepare('DELETE FROM listeners WHERE request_uuid = ?');
  const sweep = db.prepare('DELETE FROM listeners WHERE deadline < ?');
  return {
    async open(requestUuid, tokenId, deadline) {
      open.run(requestUuid, tokenId, deadline);
    },
    async respond(tokenId, requestUuid, response, now) {
      return respond.run(JSON.stringify(response), tokenId, requestUuid, now).changes > 0;
    },
    async poll(requestUuid) {
      const r = poll.get(requestUuid)?.response;
      return r ? (JSON.parse(r) as SetResponse) : null;
    },
    async close(requestUuid) {
      close.run(requestUuid);
    },
    async sweep(before) {
      return sweep.run(before).changes;
    },
  };
}
