// What the capture path is doing, in memory that every thread of the process reads
// (SharedArrayBuffer): how many batches the capture writers committed, and how busy the event loop
// was of late. A bulk deletion holds the write lock a chunk at a time, and every capture that
// commits meanwhile waits for it; a search on a reader thread takes CPU the event loop and the
// clients may want. Both look here between their steps and give way while the captures need the
// machine (chunks.ts, reader-worker.ts). It imports nothing of the store's, so the threads load it without
// the rest of it.
import { performance } from 'node:perf_hooks';

/** Shared counters: pass it to a thread in its workerData (it stays shared, not copied). */
export type CaptureActivity = Int32Array;

const COMMITS = 0;
/** The event loop's utilisation over the last sample, in thousandths. */
const LOOP = 1;

export function captureActivity(): CaptureActivity {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** A writer committed captures (wraps around; only changes are compared). */
export function noteCommit(activity: CaptureActivity | undefined): void {
  if (activity) Atomics.add(activity, COMMITS, 1);
}

/**
 * Whether captures were committed since the last call (the first call: since it was made). For
 * the deleting thread, between two chunks.
 */
export function commitWatch(activity: CaptureActivity | undefined): () => boolean {
  let seen = activity ? Atomics.load(activity, COMMITS) : 0;
  return () => {
    if (!activity) return false;
    const now = Atomics.load(activity, COMMITS);
    const changed = now !== seen;
    seen = now;
    return changed;
  };
}

/** How often the event loop's utilisation is sampled. */
export const LOOP_SAMPLE_MS = 100;
/**
 * Past this share of its time busy, the event loop is taken to be saturated (captures at full
 * speed keep it at ~0.9; an idle service at ~0.01).
 */
export const LOOP_BUSY = 0.7;

/**
 * Samples the calling thread's event-loop utilisation every LOOP_SAMPLE_MS into `activity` (the
 * store's main thread). Returns the function that stops it.
 */
export function watchLoop(activity: CaptureActivity): () => void {
  const elu = performance.eventLoopUtilization;
  let last = elu();
  const timer = setInterval(() => {
    const now = elu();
    Atomics.store(activity, LOOP, Math.round(elu(now, last).utilization * 1000));
    last = now;
  }, LOOP_SAMPLE_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Whether the event loop was saturated in the last sample. */
export function loopBusy(activity: CaptureActivity | undefined): boolean {
  return !!activity && Atomics.load(activity, LOOP) >= LOOP_BUSY * 1000;
}

/**
 * The share of the time a reader thread may spend on lists and searches while the event loop is
 * saturated: the machine's CPU is then the captures' (at nice 19 alone, searches looping on a big
 * token still took captures at 32 connections to 0.80-0.84x of their rate without them).
 */
export const READ_SHARE_WHILE_BUSY = 0.1;
/** The longest a read waits for its turn (a long search is not followed by ten times its length). */
export const MAX_READ_WAIT_MS = 1_000;

/** How long to pause after `workMs` of work to keep to `share` of the time. */
export const giveWay = (workMs: number, share: number): number => (workMs * (1 - share)) / share;
