// Requests for a whole-store copy (core/store/sqlite/transfer.ts, core/store/migrate.ts): read in
// token order with their files, written through the capture writer, so their indexes and their
// tokens' figures are kept exactly as for captures.
import type { Database } from 'better-sqlite3';
import type { RequestWithFiles } from '../../types.js';
import { SEQ_OF_UUID, toRecord as fromRequestRow } from './readers/request-reads.js';
import type { CaptureWriter } from './writer/capture-writer.js';

type Row = Record<string, unknown>;

/** Requests are written with this limit: a copy keeps what the source holds, trimming nothing. */
const NO_TRIM = 2 ** 31 - 1;

export interface RequestTransfer {
  count(): Promise<number>;
  read(cursor: string | null, limit: number): Promise<{ items: RequestWithFiles[]; cursor: string | null }>;
  write(items: RequestWithFiles[]): Promise<void>;
}

/** Requests by token, sorting key, insertion order (request_keys), with their files. */
export function requestTransfer(db: Database, writer: CaptureWriter): RequestTransfer {
  const KEYED = 'request_keys k CROSS JOIN requests r ON r.seq = k.seq';
  const first = db.prepare<[number], Row>(`SELECT r.* FROM ${KEYED} ORDER BY k.token_id, k.sorting, k.seq LIMIT ?`);
  const next = db.prepare<[string, number, number, number], Row>(`SELECT r.* FROM ${KEYED} WHERE (k.token_id, k.sorting, k.seq) > (?, ?, ?) ORDER BY k.token_id, k.sorting, k.seq LIMIT ?`);
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
        rows = next.all(tokenId, sorting, seq, limit);
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
