// Long deletions (a filter's matches, a token's requests: up to a million rows) run as many short
// write transactions, so that the capture writer, which needs the same write lock, waits for one
// chunk at most instead of for the whole deletion.

/** Requests deleted per transaction (about 10-30 ms each on a busy 2-core machine). */
export const DELETE_CHUNK = 2_000;

/** Lets the event loop (and so the capture writer) run between two chunks. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
