// Messages between the store (main thread) and the capture writer thread (writer-worker.ts).
import type { EncodedBatch } from './batch-codec.js';
import type { CaptureActivity } from '../capture-activity.js';

export interface WriterData {
  file: string;
  synchronous: 'NORMAL' | 'FULL';
  noAutocheckpoint: boolean;
  /** Niceness the thread gives itself (0: none). */
  nice: number;
  /** journal_size_limit: starting the WAL over cuts it back to this. */
  walLimitBytes: number;
  /** Counts the commits, for bulk deletions to give way to (shared memory, capture-activity.ts). */
  activity?: CaptureActivity;
}

/** A failed item as it crosses the thread boundary (an Error would lose its `code`). */
export type WireOutcome = { gone: true } | { gone: false; message: string; code?: string };

export type ToWriter =
  /** A batch of captures, encoded by batch-codec.ts (its buffers transferred). */
  | { t: 'w'; id: number; batch: EncodedBatch }
  /** Catch up now (after committing what was received before this message). */
  | { t: 'sync' }
  /** A token was listed for the search index: fill it on the catch-up's schedule. */
  | { t: 'fill' }
  /**
   * A token's request_limit was set: trim it to `limit` in steps, then catch up (`caught` up to
   * `id` at least, an id taken from the batches' sequence so that a read's sync waits for it).
   */
  | { t: 'trim'; id: number; tokenId: string; limit: number }
  | { t: 'stop' }
  | { t: 'autocheckpoint'; pages: number }
  | { t: 'crash' };

export type FromWriter =
  /** `nice`: the niceness the thread runs at, null when it could not set one. */
  | { t: 'ready'; nice: number | null }
  /**
   * `ids` were committed together, in `seconds`; `failed` lists [index in their items, outcome] of
   * those that were not.
   */
  | { t: 'ack'; ids: number[]; failed: Array<[number, WireOutcome]> | null; seconds: number }
  /** Every batch up to id `upTo` is caught up (indexed, counted, trimmed). */
  | { t: 'caught'; upTo: number }
  /** A catch-up transaction ran: the rows it took, its seconds (metrics). */
  | { t: 'catchup'; rows: number; seconds: number }
  | { t: 'stopped' };
