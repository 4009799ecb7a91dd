// CSV and HAR exports of a token's requests, streamed: the requests are read from the store a page
// at a time and written as they come, so exporting a token whose request_limit was raised (the
// MAX_REQUEST_LIMIT setting, up to 1,000,000) never holds its requests in memory. The CSV has one
// column per header, query and form key seen in the export, so it reads the pages twice: once for
// the keys (only the key names are kept), once for the rows.
import { Readable } from 'node:stream';
import type { RequestCursor, RequestFilter, RequestRecord, RequestWalkPage, Store, TokenRecord } from '../../store/types.js';
import { addCsvKeys, csvColumns, csvHeader, csvKeys, csvRow } from './csv.js';
import { HAR_OPEN, harClose, harEntry } from './har.js';

/** Requests read from the store at a time. */
export const EXPORT_PAGE = 1000;

export interface ExportSpec {
  token: TokenRecord;
  filter: RequestFilter;
  sorting: 'newest' | 'oldest';
  /** At most this many requests (the query's per_page, else the token's request_limit). */
  limit: number;
}

/**
 * The export's requests in pages of EXPORT_PAGE, in order, `limit` at most. Each page resumes from
 * where the last one ended (listAfter), not from a page number: a page deep in a million requests
 * costs what the first does, where an offset would cost the requests before it.
 */
async function* pages(store: Store, spec: ExportSpec): AsyncGenerator<RequestRecord[]> {
  let left = spec.limit;
  let after: RequestCursor | null = null;
  while (left > 0) {
    const step: RequestWalkPage = await store.requests.listAfter(spec.token.uuid, { ...spec.filter, sorting: spec.sorting, perPage: EXPORT_PAGE, after });
    const take = step.items.length > left ? step.items.slice(0, left) : step.items;
    if (take.length) yield take;
    left -= take.length;
    if (step.next === null) return;
    after = step.next;
  }
}

export function csvExport(store: Store, spec: ExportSpec): Readable {
  return Readable.from(
    (async function* () {
      const keys = csvKeys();
      for await (const items of pages(store, spec)) addCsvKeys(keys, items);
      const cols = csvColumns(keys);
      yield csvHeader(cols);
      for await (const items of pages(store, spec)) yield items.map((r) => csvRow(r, cols)).join('');
    })(),
    { objectMode: false },
  );
}

export function harExport(store: Store, spec: ExportSpec): Readable {
  return Readable.from(
    (async function* () {
      yield HAR_OPEN;
      let first = true;
      let left = 0;
      for await (const items of pages(store, spec)) {
        const out: string[] = [];
        for (const r of items) {
          const e = harEntry(r, spec.token);
          if (e === null) left++;
          else {
            out.push(first ? e : ',' + e);
            first = false;
          }
        }
        if (out.length) yield out.join('');
      }
      yield harClose(left);
    })(),
    { objectMode: false },
  );
}
