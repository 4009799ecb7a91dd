import type { Database } from 'better-sqlite3';
import { compileSql, textDriver, type QueryNode } from '../query/index.js';
import { COUNT_BOUND } from '../query/limits.js';
import type { RequestFilter, RequestRecord, RequestRepo } from '../types.js';
import { json } from './batch-writer.js';
import { DELETE_CHUNK, yieldToLoop } from './chunks.js';
import { inThreadWriter, type CaptureWriter } from './capture-writer.js';

type Row = Record<string, unknown>;

export function toRecord(r: Row): RequestRecord {
  return {
    uuid: r.uuid as string,
    token_id: r.token_id as string,
    type: r.type as RequestRecord['type'],
    team_id: (r.team_id as number | null) ?? null,
    ip: (r.ip as string) ?? '',
    hostname: (r.hostname as string) ?? '',
    method: (r.method as string) ?? '',
    user_agent: (r.user_agent as string) ?? '',
    url: (r.url as string) ?? '',
    content_type: (r.content_type as string | null) ?? null,
    body: r.body as Buffer,
    size: r.size as number,
    query: r.query === null ? null : JSON.parse(r.query as string),
    headers: JSON.parse(r.headers as string),
    form: r.form === null ? null : JSON.parse(r.form as string),
    files: JSON.parse(r.files as string),
    custom_action_output: JSON.parse(r.output as string),
    custom_action_errors: JSON.parse(r.errors as string),
    time: r.time as number,
    note: (r.note as string | null) ?? null,
    sorting: r.sorting as number,
    created_at: r.created_at as number,
    updated_at: r.updated_at as number,
    extra: JSON.parse(r.extra as string),
  };
}

/**
 * A token's requests, through its index (request_keys k: tk token, st sorting, sq seq), in index
 * order. Reads call writer.sync() first, so that every acknowledged capture has its key.
 * CROSS JOIN keeps request_keys the outer loop (SQLite's planner takes it as an order).
 */
const KEYED = 'request_keys k CROSS JOIN requests r ON r.seq = k.sq';

/**
 * The seq of the request with UUID @u: from the UUID index (request_ids), or among the pending rows
 * the catch-up has not indexed yet (past the watermark: at most one catch-up's worth, scanned).
 */
export const SEQ_OF_UUID = `SELECT sq FROM request_ids WHERE u = @u
  UNION ALL SELECT seq FROM requests WHERE seq > (SELECT seq FROM request_watermark) AND uuid = @u`;

/**
 * WHERE clause and parameters for a token's requests under a filter, over the token index `k`
 * (joined to `requests r` only when `needsRow`: the filter reads a column the index lacks).
 */
function where(tokenId: string, f: RequestFilter, driven?: QueryNode): { sql: string; params: unknown[]; filtered: boolean; needsRow: boolean } {
  const parts = ['k.tk = ?'];
  const params: unknown[] = [tokenId];
  let needsRow = false;
  if (f.dateFrom != null) {
    parts.push('k.kca >= ?');
    params.push(f.dateFrom);
  }
  if (f.dateTo != null) {
    parts.push('k.kca <= ?');
    params.push(f.dateTo);
  }
  if (f.query) {
    const c = compileSql(f.query, f.now ?? Date.now(), { keyed: true, driven });
    parts.push(`(${c.sql})`);
    params.push(...c.params);
    needsRow = c.needsRow;
  }
  return { sql: parts.join(' AND '), params, filtered: parts.length > 1, needsRow };
}

/**
 * Starting from the body's trigram index (a search with a `content` term, textDriver()): its
 * candidates, their rows, their keys. Costs what the candidates number, not what the token holds.
 */
const DRIVEN = `request_text CROSS JOIN requests r ON r.seq = request_text.rowid
  CROSS JOIN request_keys k ON k.tk = r.token_id AND k.st = r.sorting AND k.sq = r.seq`;

/**
 * Below this many matches a page is sorted from the trigram index's candidates; above, walking the
 * token index in order finds a page's matches sooner.
 */
const SORT_CANDIDATES_BELOW = 2_000;

/** The FROM clause a filter needs: the token index alone, or joined to the rows. */
const fromFor = (w: { needsRow: boolean }): string => (w.needsRow ? KEYED : 'request_keys k');

/**
 * `writer` stores captures (insert): on this connection by default, or on a writer thread with its
 * own connection (capture-writer.ts). Everything else runs on `db`; with WAL, a capture the writer
 * committed is visible to this connection's next statement, and to the token-scoped ones once
 * writer.sync() has caught it up. Reads by UUID see it at once (SEQ_OF_UUID).
 */
export function sqliteRequests(db: Database, writer: CaptureWriter = inThreadWriter(db)): RequestRepo {
  const refreshStats = db.prepare(`UPDATE tokens SET
      request_count = (SELECT count(*) FROM request_keys WHERE tk = @t),
      latest_request_id = (SELECT r.uuid FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1),
      latest_request_at = (SELECT r.created_at FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1)
    WHERE uuid = @t`);
  const byId = db.prepare<[{ t: string; u: string }], Row>(`SELECT * FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`);
  const latest = db.prepare<[string], Row>(`SELECT r.* FROM ${KEYED} WHERE k.tk = ? ORDER BY k.st DESC, k.sq DESC LIMIT 1`);
  // The token's counter (kept by the catch-up, deletions and trimming): exact once caught up.
  const tokenCount = db.prepare<[string], number>('SELECT request_count FROM tokens WHERE uuid = ?').pluck();
  const dropCount = db.prepare('UPDATE tokens SET request_count = max(request_count - ?, 0) WHERE uuid = ?');
  const refreshLatest = db.prepare(`UPDATE tokens SET
      latest_request_id = (SELECT r.uuid FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1),
      latest_request_at = (SELECT r.created_at FROM ${KEYED} WHERE k.tk = @t ORDER BY k.st DESC, k.sq DESC LIMIT 1)
    WHERE uuid = @t`);
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
      await writer.sync();
      const r = latest.get(tokenId);
      return r ? toRecord(r) : null;
    },
    async list(tokenId, opts) {
      await writer.sync();
      const driver = opts.query ? textDriver(opts.query, opts.now ?? Date.now()) : null;
      const w = where(tokenId, opts, driver?.node);
      const dir = opts.sorting === 'newest' ? 'DESC' : 'ASC';
      const bound = (from: string, sql: string, params: unknown[]): number =>
        (db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${sql} LIMIT ?)`).get(...params, COUNT_BOUND + 1) as { n: number }).n;
      let total: number;
      let totalCapped = false;
      // Counted up to the bound only: past it, the exact figure would cost a scan of every match.
      if (driver) total = bound(DRIVEN, `request_text MATCH ? AND ${w.sql}`, [driver.match, ...w.params]);
      else if (w.filtered) total = bound(fromFor(w), w.sql, w.params);
      else total = tokenCount.get(tokenId) ?? 0;
      if (w.filtered && total > COUNT_BOUND) (total = COUNT_BOUND), (totalCapped = true);
      const offset = (opts.page - 1) * opts.perPage;
      let rows: Row[];
      if (driver && total < SORT_CANDIDATES_BELOW) {
        rows = db
          .prepare(`SELECT r.* FROM ${DRIVEN} WHERE request_text MATCH ? AND ${w.sql} ORDER BY k.st ${dir}, k.sq ${dir} LIMIT ? OFFSET ?`)
          .all(driver.match, ...w.params, opts.perPage, offset) as Row[];
      } else {
        // Deferred join: the page's seqs from the index (no row read unless the filter needs one),
        // then only those rows.
        rows = db
          .prepare(
            `SELECT r.* FROM (SELECT k.st AS st, k.sq AS sq FROM ${fromFor(w)} WHERE ${w.sql} ORDER BY k.st ${dir}, k.sq ${dir} LIMIT ? OFFSET ?) p
              CROSS JOIN requests r ON r.seq = p.sq ORDER BY p.st ${dir}, p.sq ${dir}`,
          )
          .all(...w.params, opts.perPage, offset) as Row[];
      }
      return totalCapped ? { items: rows.map(toRecord), total, totalCapped } : { items: rows.map(toRecord), total };
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
      await writer.sync();
      const gone = db.transaction(() => {
        const n = delOne.run({ t: tokenId, u: uuid }).changes;
        if (n) refreshStats.run({ t: tokenId });
        return n > 0;
      });
      // IMMEDIATE: the writer thread may hold the write lock; wait for it (busy_timeout) up front.
      return gone.immediate();
    },
    async deleteMany(tokenId, filter) {
      await writer.sync();
      const w = where(tokenId, filter);
      // In chunks of short transactions, walking the index forward from the last chunk (keyset), so
      // that a capture waits for one chunk at most, never for the whole delete.
      const chunk = db.prepare<unknown[], { st: number; sq: number }>(
        `SELECT k.st AS st, k.sq AS sq FROM ${fromFor(w)} WHERE ${w.sql} AND (k.st, k.sq) > (?, ?) ORDER BY k.st, k.sq LIMIT ${DELETE_CHUNK}`,
      );
      // Their keys go with them (trigger requests_unkey).
      const delSeqs = db.prepare('DELETE FROM requests WHERE seq IN (SELECT value FROM json_each(?))');
      const step = db.transaction((after: { st: number; sq: number }) => {
        const picked = chunk.all(...w.params, after.st, after.sq);
        const n = picked.length ? delSeqs.run(JSON.stringify(picked.map((p) => p.sq))).changes : 0;
        if (n) dropCount.run(n, tokenId);
        return { n, last: picked.at(-1) ?? null, more: picked.length === DELETE_CHUNK };
      });
      let deleted = 0;
      let after = { st: Number.MIN_SAFE_INTEGER, sq: 0 };
      for (;;) {
        // IMMEDIATE: the writer thread may hold the write lock; wait for it (busy_timeout) up front.
        const r = step.immediate(after);
        deleted += r.n;
        if (!r.more || !r.last) break;
        after = r.last;
        await yieldToLoop();
      }
      if (deleted) db.transaction(() => refreshLatest.run({ t: tokenId })).immediate();
      return deleted;
    },
    async getFile(tokenId, requestUuid, fileId) {
      return file.get({ t: tokenId, u: requestUuid, f: fileId }) ?? null;
    },
  };
}
