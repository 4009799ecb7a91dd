import type { Database } from 'better-sqlite3';
import type { RequestRepo } from '../types.js';
import { json } from './batch-writer.js';
import { inThreadWriter, type CaptureWriter } from './capture-writer.js';
import { inThreadReads, type RequestReads } from './reader-pool.js';
import { KEYED, planFilters, planList, planWalk, SEQ_OF_UUID, toRecord } from './request-reads.js';

export { SEQ_OF_UUID, toRecord };

type Row = Record<string, unknown>;

/**
 * `writer` stores captures (insert): on this connection by default, or on a writer thread with its
 * own connection (capture-writer.ts). Lists, searches and bulk deletions run on `reads` (reader
 * threads on a file database, reader-pool.ts); the rest on `db`. With WAL, a capture the writer
 * committed is visible to every connection's next statement, and to the token-scoped ones once
 * writer.sync() has caught it up. Reads by UUID see it at once (SEQ_OF_UUID).
 */
export function sqliteRequests(db: Database, writer: CaptureWriter = inThreadWriter(db), reads: RequestReads = inThreadReads(db)): RequestRepo {
  const refreshStats = db.prepare(`UPDATE tokens SET
      request_count = (SELECT count(*) FROM request_keys WHERE tk = @t),
      latest_request_id = (SELECT r.uuid FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1),
      latest_request_at = (SELECT r.created_at FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1)
    WHERE uuid = @t`);
  const byId = db.prepare<[{ t: string; u: string }], Row>(`SELECT * FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`);
  const latest = db.prepare<[string], Row>(`SELECT r.* FROM ${KEYED} WHERE k.tk = ? ORDER BY k.st DESC, k.sq DESC LIMIT 1`);
  const delOne = db.prepare(`DELETE FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`);
  const file = db.prepare<[{ t: string; u: string; f: string }], Buffer>(
    `SELECT data FROM request_files WHERE request_uuid = @u AND file_id = @f AND EXISTS (SELECT 1 FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t)`,
  ).pluck();

  return {
    insert(record, limit, files) {
      if (limit <= 0) return Promise.resolve();
      // Group commit: settled only once its transaction is committed.
      return writer.write(record, limit, files);
    },
    async get(tokenId, uuid) {
      const r = byId.get({ t: tokenId, u: uuid });
      return r ? toRecord(r) : null;
    },
    async latest(tokenId) {
      await writer.sync(tokenId);
      const r = latest.get(tokenId);
      return r ? toRecord(r) : null;
    },
    async list(tokenId, opts) {
      await writer.sync(tokenId);
      // Planned here (a bad search fails with its own error), run off the event loop.
      return reads.list(planList(tokenId, opts));
    },
    async listAfter(tokenId, opts) {
      await writer.sync(tokenId);
      return reads.walk(planWalk(tokenId, opts));
    },
    async update(tokenId, uuid, patch) {
      const sets: string[] = [];
      const params: unknown[] = [];
      if ('note' in patch) (sets.push('note = ?'), params.push(patch.note ?? null));
      if (patch.custom_action_output) (sets.push('output = ?'), params.push(json(patch.custom_action_output)));
      if (patch.custom_action_errors) (sets.push('errors = ?'), params.push(json(patch.custom_action_errors)));
      if (patch.extra) (sets.push('extra = ?'), params.push(json(patch.extra)));
      sets.push('updated_at = ?');
      params.push(patch.updated_at ?? Date.now());
      const r = byId.get({ t: tokenId, u: uuid });
      if (!r) return null;
      const updated = db.prepare<unknown[], Row>(`UPDATE requests SET ${sets.join(', ')} WHERE seq = ? RETURNING *`).get(...params, r.seq);
      return updated ? toRecord(updated) : null;
    },
    async delete(tokenId, uuid) {
      // Caught up first, so the recount below and the catch-up never count a request twice.
      await writer.sync(tokenId);
      const gone = db.transaction(() => {
        const n = delOne.run({ t: tokenId, u: uuid }).changes;
        if (n) refreshStats.run({ t: tokenId });
        return n > 0;
      });
      // IMMEDIATE: the writer thread may hold the write lock; wait for it (busy_timeout) up front.
      return gone.immediate();
    },
    async deleteMany(tokenId, filter) {
      await writer.sync(tokenId);
      return reads.deleteMatching(planFilters(tokenId, filter));
    },
    async getFile(tokenId, requestUuid, fileId) {
      return file.get({ t: tokenId, u: requestUuid, f: fileId }) ?? null;
    },
  };
}
