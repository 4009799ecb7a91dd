// Reads held back while the WAL is over its bound. SQLite can cut the WAL only once no reader is on
// an old snapshot; with searches back to back on the reader threads there always is one, and the
// WAL grew to 1.25 GB during a 100,000-row delete beside a search loop (bound: 256 MB). While the
// checkpointer says the WAL is over (checkpointer.ts), new reads wait for it to be cut, at most
// MAX_HOLD_MS each, so a read is delayed, never starved; reads already running go on.

/** The longest a read waits for the WAL to be cut. */
export const MAX_HOLD_MS = 250;

export interface WalGate {
  /** The WAL passed its bound (true), or is back under it (false). */
  set(over: boolean): void;
  /** Null when reads may start now; else resolves when they may (cut, or MAX_HOLD_MS passed). */
  wait(): Promise<void> | null;
}

export function walGate(maxHoldMs = MAX_HOLD_MS): WalGate {
  let held: { promise: Promise<void>; release: () => void } | null = null;
  return {
    set(over) {
      if (over && !held) {
        let release!: () => void;
        const promise = new Promise<void>((r) => (release = r));
        held = { promise, release };
      } else if (!over && held) {
        held.release();
        held = null;
      }
    },
    wait() {
      if (!held) return null;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxHoldMs);
        void held!.promise.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** `reads` with every method but close() started only once the gate lets reads start. */
export function gatedReads<T extends { close(): Promise<void> }>(reads: T, gate: WalGate): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(reads)) {
    if (typeof value !== 'function' || key === 'close') {
      out[key] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => Promise<unknown>;
    out[key] = (...args: unknown[]) => {
      const waiting = gate.wait();
      return waiting ? waiting.then(() => method.apply(reads, args)) : method.apply(reads, args);
    };
  }
  return out as T;
}
