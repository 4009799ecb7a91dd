// Requests for a whole-store copy (core/store/sqlite/transfer.ts, core/store/migrate.ts): read in
// token order with their files, written through the capture writer, so their indexes and their
// tokens' figures are kept exactly as for captures.
import type { Database } from 'better-sqlite3';
import type { RequestWithFiles } from '../../types.js';
import { SEQ_OF_UUID, toRecord as fromRequestRow } from './readers/request-reads.js';
import type { CaptureWriter } from './writer/capture-writer.js';
import { tokenNumberOf } from './token-number.js';

type Row = Record<string, unknown>;

/** Requests are written with this limit: a copy keeps what the source holds, trimming nothing. */
const NO_TRIM = 2 ** 31 - 1;

export interface RequestTransfer {
  count(): Promise<number>;
  read(cursor: string | null, limit: number): Promise<{ items: RequestWithFiles[]; cursor: string | null }>;
  write(items: RequestWithFiles[]): Promise<void>;
}

/**
 * Requests by token UUID, sorting key, insertion order, with their files: the same order in any
 * store, whatever numbers its tokens have (request_keys is in token number order: token-number.ts).
 * A cursor is the last request's [token UUID, sorting, seq]: the rest of that token's, then the
 * next tokens'. The rowid in the ORDER BY tells SQLite that each UUID is one token (a text primary
 * key may hold NULLs), so each token's keys come in index order, unsorted.
 */
export function requestTransfer(db: Database, writer: CaptureWriter): RequestTransfer {
  const BY_TOKEN = 'tokens t CROSS JOIN request_keys k ON k.token_number = t.number CROSS JOIN requests r ON r.seq = k.seq';
  const first = db.prepare<[number], Row>(`SELECT r.* FROM ${BY_TOKEN} ORDER BY t.uuid, t.rowid, k.sorting, k.seq LIMIT ?`);
  const sameToken = db.prepare<[string, number, number, number], Row>(
    `SELECT r.* FROM request_keys k CROSS JOIN requests r ON r.seq = k.seq WHERE k.token_number = ${tokenNumberOf('?')} AND (k.sorting, k.seq) > (?, ?) ORDER BY k.sorting, k.seq LIMIT ?`,
  );
  const nextTokens = db.prepare<[string, number], Row>(`SELECT r.* FROM ${BY_TOKEN} WHERE t.uuid > ? ORDER BY t.uuid, t.rowid, k.sorting, k.seq LIMIT ?`);
  const files = db.prepare<[string], { file_id: string; data: Buffer }>('SELECT file_id, data FROM request_files WHERE request_uuid = ? ORDER BY file_id');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM request_keys');
  const exists = db.prepare<[{ t: string; u: string }], number>(`SELECT 1 FROM requests WHERE seq IN (${SEQ_OF_UUID}) AND token_id = @t`).pluck();
  return {
    async count() {
      await writer.sync();
      return count.get()!.n;
    },
    async read(cursor: string | null, limit: number) {
      await writer.sync();
      let rows: Row[];
      if (cursor === null) rows = first.all(limit);
      else {
        const [tokenId, sorting, seq] = JSON.parse(cursor) as [string, number, number];
        rows = sameToken.all(tokenId, sorting, seq, limit);
        if (rows.length < limit) rows.push(...nextTokens.all(tokenId, limit - rows.length));
      }
      const items: RequestWithFiles[] = rows.map((r) => ({
        request: fromRequestRow(r),
        files: files.all(r.uuid as string).map((f) => ({ id: f.file_id, data: f.data })),
      }));
      const last = rows.at(-1);
      return { items, cursor: last ? JSON.stringify([last.token_id, last.sorting, last.seq]) : null };
    },
    async write(items: RequestWithFiles[]) {
      await writer.sync();
      const fresh = items.filter((i) => exists.get({ t: i.request.token_id, u: i.request.uuid }) === undefined);
      // Queued in one turn: the writer commits them together, in this order.
      await Promise.all(fresh.map((i) => writer.write(i.request, NO_TRIM, new Map(i.files.map((f) => [f.id, f.data])))));
      await writer.sync();
    },
  };
}
