// Script runners (the sandbox's workers, the event loop for WebhookScript) are shared by every
// account, so no account may hold them all: runs wait in a queue per account, accounts take turns
// (round-robin), and at most `maxRunningPerAccount` runs of one account go at a time. An account
// that floods the runners waits behind its own runs, not in front of everyone else's.
import type { TokenInfo } from './types.js';

/** Whose share a token's runs count against: its owner's, or the token's own when anonymous. */
export function accountOf(token: Pick<TokenInfo, 'uuid' | 'user_id'>): string {
  return token.user_id !== null ? `user:${token.user_id}` : `token:${token.uuid}`;
}

export class FairQueue<T> {
  /** Accounts with waiting items, in turn order (a Map iterates in insertion order). */
  private readonly waitingByAccount = new Map<string, T[]>();
  private readonly runningByAccount = new Map<string, number>();
  private waitingCount = 0;

  constructor(readonly maxRunningPerAccount: number) {
    if (!(maxRunningPerAccount >= 1)) throw new RangeError('maxRunningPerAccount must be at least 1');
  }

  get waiting(): number {
    return this.waitingCount;
  }

  running(account: string): number {
    return this.runningByAccount.get(account) ?? 0;
  }

  push(account: string, item: T): void {
    const queue = this.waitingByAccount.get(account);
    if (queue) queue.push(item);
    else this.waitingByAccount.set(account, [item]);
    this.waitingCount++;
  }

  /** Takes a waiting item out (it gave up waiting); false when it is not waiting. */
  remove(account: string, item: T): boolean {
    const queue = this.waitingByAccount.get(account);
    const i = queue ? queue.indexOf(item) : -1;
    if (!queue || i < 0) return false;
    queue.splice(i, 1);
    if (!queue.length) this.waitingByAccount.delete(account);
    this.waitingCount--;
    return true;
  }

  /** The next item of the first account in turn that is under its cap; it counts as running until `done`. */
  take(): { account: string; item: T } | undefined {
    for (const [account, queue] of this.waitingByAccount) {
      const running = this.running(account);
      if (running >= this.maxRunningPerAccount) continue;
      const item = queue.shift()!;
      // The account goes to the back of the turn order (or out, when it has nothing more waiting).
      this.waitingByAccount.delete(account);
      if (queue.length) this.waitingByAccount.set(account, queue);
      this.waitingCount--;
      this.runningByAccount.set(account, running + 1);
      return { account, item };
    }
    return undefined;
  }

  /** A run taken for `account` ended. */
  done(account: string): void {
    const running = this.running(account) - 1;
    if (running > 0) this.runningByAccount.set(account, running);
    else this.runningByAccount.delete(account);
  }

  /** Empties the queue (shutting down); gives what was waiting. */
  clear(): T[] {
    const all = [...this.waitingByAccount.values()].flat();
    this.waitingByAccount.clear();
    this.waitingCount = 0;
    return all;
  }
}
