// Waiting on something that cannot be cancelled itself (a driver's connect, a broker's reply)
// while the action's signal (its time limit, the chain's budget) may end the wait.

/**
 * `promise`, or a rejection with the signal's reason as soon as it aborts (at once when it already
 * has); `onAbort` then runs once, e.g. to drop the connection the promise waits on.
 */
export function untilAborted<T>(signal: AbortSignal, promise: Promise<T>, onAbort: () => void = () => {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      try {
        onAbort();
      } finally {
        reject(signal.reason);
      }
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}
