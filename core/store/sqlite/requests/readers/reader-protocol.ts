// Messages between the store (main thread) and a reader thread (reader-worker.ts).
import type { RequestWalkPage } from '../../../types.js';
import type { CaptureActivity } from '../capture-activity.js';
import type { MatchBatch, MatchCursor } from './chunks.js';
import type { FilterPlans, ListPlan, ListResult, WalkPlan } from './request-reads.js';

export interface ReaderData {
  file: string;
  /** As on every connection that writes (the chunked deletes write). */
  walLimitBytes: number;
  /** Niceness the thread gives itself (0: none). */
  nice: number;
  /** The capture path's activity (shared memory): deletions and reads give way to it (capture-activity.ts). */
  activity?: CaptureActivity;
}

export type ReaderJob =
  | { op: 'list'; plan: ListPlan }
  | { op: 'walk'; plan: WalkPlan }
  | { op: 'deleteMatching'; plan: FilterPlans }
  /** A batch of a deletion's matches, for the event loop's connection to delete (chunks.ts). */
  | { op: 'matches'; plan: FilterPlans; cursor: MatchCursor | null }
  | { op: 'deleteTokenRequests'; tokenId: string };

/** What each job answers. */
export interface ReaderAnswers {
  list: ListResult;
  walk: RequestWalkPage;
  deleteMatching: number;
  /** With how long it took to read. */
  matches: MatchBatch & { ms: number };
  deleteTokenRequests: number;
}

export type ToReader = { t: 'job'; id: number; job: ReaderJob } | { t: 'stop' };

/** An error as it crosses the thread boundary (an Error would lose its `code`). */
export interface WireError {
  message: string;
  code?: string;
}

export type FromReader = { t: 'done'; id: number; value: unknown } | { t: 'failed'; id: number; error: WireError } | { t: 'stopped' };
