// WebhookScript runs on the event loop, which every account shares: an account's runs beyond
// limits.maxRunsPerAccount wait for its earlier ones to end (accounts take turns, FairQueue), so
// an account that floods its tokens with scripts slows down its own scripts, not everyone's.
import { FairQueue } from '@capture/sdk/fair-share';

export class AccountGate {
  private readonly queue: FairQueue<() => void>;

  constructor(maxRunsPerAccount: number) {
    this.queue = new FairQueue(maxRunsPerAccount);
  }

  /**
   * Resolves when `account` may start a run, with the function that ends it; rejects with the
   * signal's reason when the signal aborts first (the chain's time budget was spent waiting).
   */
  async enter(account: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        if (this.queue.remove(account, start)) reject(signal.reason);
      };
      const start = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(account, start);
      this.admit();
    });
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.queue.done(account);
      this.admit();
    };
  }

  private admit(): void {
    for (let next = this.queue.take(); next; next = this.queue.take()) next.item();
  }
}
