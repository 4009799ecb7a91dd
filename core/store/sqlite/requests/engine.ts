// The request engine: captures in, requests out. Its writer (writer/) commits captures in groups
// and catches their bookkeeping up in bulk; its readers (readers/) run lists, searches and bulk
// deletions on threads; its search index (search/) serves the tokens with many requests. The rest
// of the store sees it only through openRequestEngine (index.ts is the folder's one entry point).
import type { Database } from 'better-sqlite3';
import type { SpaceWatch } from '../../space.js';
import type { CatchUpObserver, CommitObserver, RequestRepo } from '../../types.js';
import { captureActivity, watchLoop } from './capture-activity.js';
import { gatedReads, walGate } from './readers/wal-gate.js';
import { requestTransfer, type RequestTransfer } from './transfer.js';
import { DEFAULT_SEARCH_INDEX_ABOVE, setSearchIndexAbove } from './search/search-tokens.js';
import { json } from './columns.js';
import { inThreadWriter, workerWriter, type CaptureWriter } from './writer/capture-writer.js';
import { inThreadReads, threadedReads, type RequestReads } from './readers/reader-pool.js';
import { tokenLeftovers } from './readers/chunks.js';
import { tokenNumberOf } from './token-number.js';
import { KEYED, planFilters, planList, planWalk, SEQ_OF_UUID, toRecord } from './readers/request-reads.js';

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
      request_count = (SELECT count(*) FROM request_keys WHERE token_number = tokens.number),
      latest_request_id = (SELECT r.uuid FROM ${KEYED} WHERE k.token_number = tokens.number ORDER BY k.sorting DESC, k.seq DESC LIMIT 1),
      latest_request_at = (SELECT r.created_at FROM ${KEYED} WHERE k.token_number = tokens.number ORDER BY k.sorting DESC, k.seq DESC LIMIT 1)
    WHERE uuid = @t`);
  const byId = db.prepare<[{ t: string; u: string }], Row>(`SELECT * FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`);
  const latest = db.prepare<[string], Row>(`SELECT r.* FROM ${KEYED} WHERE k.token_number = ${tokenNumberOf('?')} ORDER BY k.sorting DESC, k.seq DESC LIMIT 1`);
  const delOne = db.prepare(`DELETE FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`);
  const file = db
    .prepare<[{ t: string; u: string; f: string }], Buffer>(`SELECT data FROM request_files WHERE request_uuid = @u AND file_id = @f AND EXISTS (SELECT 1 FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t)`)
    .pluck();

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

/** What the token repository asks of the engine (core/store/sqlite/repos/tokens.ts). */
export interface TokenRequests {
  /** Catches up the captures stored so far (of one token, or all): counters and latest request follow. */
  sync(tokenId?: string): Promise<void>;
  /** Deletes a token's requests, in chunks that give way to captures. */
  deleteTokenRequests(tokenId: string): Promise<number>;
  /**
   * Deletes what deleteTokenRequests left (captures meanwhile, trimmed rows not swept yet): call it
   * inside the transaction that deletes the token, on the engine's connection.
   */
  deleteTokenLeftovers(tokenId: string): void;
  /** A token's request_limit changed: it may now need its search index filled. */
  searchIndexChanged(): void;
  /**
   * A token's request_limit was set to `limit`: its requests beyond it are trimmed at once for every
   * read of the token (which waits for the trim: their index entries only), their rows deleted after
   * it by the sweep, in steps that give way to captures and reads. Raising it trims nothing, and
   * brings nothing back.
   */
  trimTo(tokenId: string, limit: number): void;
}

/** The same, on one connection and no threads (tests, ':memory:'). */
export function inThreadTokenRequests(db: Database): TokenRequests {
  const reads = inThreadReads(db);
  return {
    sync: () => Promise.resolve(),
    deleteTokenRequests: (t) => reads.deleteTokenRequests(t),
    deleteTokenLeftovers: tokenLeftovers(db),
    searchIndexChanged: () => {},
    // No writer here (the repositories' unit tests): captures trim as they come.
    trimTo: () => {},
  };
}

export interface RequestEngineOptions {
  /** The database file, or ':memory:' (no threads: a second connection cannot see it). */
  file: string;
  synchronous: 'NORMAL' | 'FULL';
  /** Where captures are committed: 'in-thread' on `db`, 'worker' on a writer thread (file only). */
  writer: 'worker' | 'in-thread';
  writerNice: number;
  readerNice: number;
  walLimitBytes: number;
  /** Tokens allowed more requests than this get a search index (search/search-tokens.ts). */
  searchIndexAbove?: number;
  /** Writes refused for lack of space are reported here (core/store/space.ts). */
  space?: SpaceWatch;
}

/** The engine as the store sees it: nothing else of this folder is used outside it. */
export interface RequestEngine extends TokenRequests {
  /** insert, get, latest, list, listAfter (a walk), update, delete, deleteMany (deleteMatching), getFile. */
  readonly requests: RequestRepo;
  /** Requests for a whole-store copy (core/store/migrate.ts), through the capture writer. */
  readonly transfer: RequestTransfer;
  /** The capture writer (its observers: metrics, tests). */
  readonly writer: CaptureWriter;
  observeCaptureCommits(observer: CommitObserver | null): void;
  observeCatchUps(observer: CatchUpObserver | null): void;
  /** The checkpointer says whether the WAL is over its bound: new reads wait while it is. */
  walOver(over: boolean): void;
  /** The checkpointer thread is gone: the writer thread checkpoints itself again. */
  checkpointerGone(): void;
  /** Deletions stop after their chunk, pending captures are committed, then the threads stop. */
  close(): Promise<void>;
}

/** Opens the engine on a migrated database. */
export function openRequestEngine(db: Database, opts: RequestEngineOptions): RequestEngine {
  // Before the writer starts: its first catch-up fills the tokens listed here.
  setSearchIndexAbove(db, opts.searchIndexAbove ?? DEFAULT_SEARCH_INDEX_ABOVE);
  const onFile = opts.file !== ':memory:';
  const { space, walLimitBytes } = opts;
  // The writers count their commits; a bulk deletion gives way while they come (capture-activity.ts).
  const activity = captureActivity();
  let writer: CaptureWriter;
  let checkpointerGone = () => {};
  if (onFile && opts.writer === 'worker') {
    const w = workerWriter(db, { file: opts.file, synchronous: opts.synchronous, noAutocheckpoint: true, nice: opts.writerNice, walLimitBytes, activity, space });
    checkpointerGone = () => w.autocheckpoint(1000);
    writer = w;
  } else writer = inThreadWriter(db, activity, space);
  // Lists, searches and bulk deletions: on threads, started on first use (a second connection
  // cannot see a ':memory:' database, which keeps them in-thread).
  // They wait while the WAL is over its bound, so that it can be cut (wal-gate.ts).
  const gate = walGate();
  // Deletions run where the captures commit (reader-pool.ts says why): on this connection with the
  // in-thread writer.
  const deleteOn = opts.writer === 'in-thread' ? db : undefined;
  const reads = onFile ? gatedReads(threadedReads(opts.file, { walLimitBytes, nice: opts.readerNice, activity, deleteOn }), gate) : inThreadReads(db);
  // How busy the event loop is, for the reader and deleting threads to give way to (capture-activity.ts).
  const stopLoopWatch = onFile ? watchLoop(activity) : () => {};
  return {
    requests: sqliteRequests(db, writer, reads),
    transfer: requestTransfer(db, writer),
    writer,
    sync: (tokenId) => writer.sync(tokenId),
    deleteTokenRequests: (tokenId) => reads.deleteTokenRequests(tokenId),
    deleteTokenLeftovers: tokenLeftovers(db),
    searchIndexChanged: () => writer.fillSearchIndex(),
    trimTo: (tokenId, limit) => writer.trimTo(tokenId, limit),
    observeCaptureCommits(observer) {
      writer.onCommit = observer;
    },
    observeCatchUps(observer) {
      writer.onCatchUp = observer;
    },
    walOver: (over) => gate.set(over),
    checkpointerGone: () => checkpointerGone(),
    async close() {
      stopLoopWatch();
      await reads.close();
      await writer.close();
    },
  };
}
