// Capture commits, counted in memory that every thread of the process reads (SharedArrayBuffer).
// A bulk deletion holds the write lock a chunk at a time, and every capture that commits meanwhile
// waits for it: between its chunks it looks here, and while captures are flowing it gives way
// longer (chunks.ts), so that a long deletion takes a small share of the lock instead of a third.
// It imports nothing, so the threads load it without the rest of the store.

/** One counter, shared: pass it to a thread in its workerData (it stays shared, not copied). */
export type CaptureActivity = Int32Array;

export function captureActivity(): CaptureActivity {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/** A writer committed captures (wraps around; only changes are compared). */
export function noteCommit(activity: CaptureActivity | undefined): void {
  if (activity) Atomics.add(activity, 0, 1);
}

/**
 * Whether captures were committed since the last call (the first call: since it was made). For
 * the deleting thread, between two chunks.
 */
export function commitWatch(activity: CaptureActivity | undefined): () => boolean {
  let seen = activity ? Atomics.load(activity, 0) : 0;
  return () => {
    if (!activity) return false;
    const now = Atomics.load(activity, 0);
    const changed = now !== seen;
    seen = now;
    return changed;
  };
}
