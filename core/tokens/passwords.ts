// Checking a token's password, with wrong guesses throttled. A wrong password counts against the
// token and against the caller's address, in minute windows of the store's rate counters
// (CounterRepo), so every instance on one store counts together. While either count is at its
// limit, every password check of that token (or from that address) is answered 429 until the minute
// is over, the right password too: were it let through, a guesser would only have to keep going.
// The owner's API key and share links need no password, so they are never held back (setting a new
// password, which asks for the old one, is).
//
// Checks still running count as possible failures: a check that could take a count past its limit
// waits for one of them to end, so guesses sent all at once are held to the limit too (in this
// process; each other instance can overshoot by its own checks in flight).
import { ipv6Groups } from '../net/embedded-ipv4.js';
import { verifyPassword } from '../auth/secrets.js';
import { TooManyRequests } from '../errors.js';
import type { Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';

export interface PasswordLimits {
  /** Wrong passwords a minute for one token, from all addresses together. */
  perToken: number;
  /** Wrong passwords a minute from one address (an IPv6 /64), to all tokens together. */
  perAddress: number;
}

const WINDOW_MS = 60_000;

/** What the counters count: an IPv6 address by its /64 (one host or subscriber has the whole /64). */
export function addressKey(address: string): string {
  const groups = ipv6Groups(address);
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : address;
}

interface Counted {
  key: string;
  limit: number;
  /** For the 429's message. */
  what: string;
}

export class TokenPasswords {
  /** Checks running in this process, per counter key. */
  private readonly running = new Map<string, number>();
  /** Checks waiting for a running one of the key to end. */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly store: Pick<Store, 'counters'>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly limits: PasswordLimits,
  ) {}

  /**
   * Whether `password` is the token's. A wrong one is counted; 429 (TooManyRequests, Retry-After at
   * the window's end) while the token or the address is at its limit.
   */
  async check(token: TokenRecord, password: string, address: string): Promise<boolean> {
    if (!token.password_hash) return false;
    const counted: Counted[] = [
      { key: `password-fail:token:${token.uuid}`, limit: this.limits.perToken, what: 'this token' },
      { key: `password-fail:address:${addressKey(address)}`, limit: this.limits.perAddress, what: 'your address' },
    ];
    await this.admit(counted);
    try {
      const ok = await verifyPassword(password, token.password_hash);
      if (!ok) {
        const now = this.clock.now();
        await Promise.all(counted.map((c) => this.store.counters.hit(c.key, windowOf(now), 2 * WINDOW_MS)));
      }
      return ok;
    } finally {
      for (const c of counted) this.ended(c.key);
    }
  }

  /** Whether `password` is the token's, neither counted nor throttled: for a live stream checking again the password it was opened with. */
  async matches(token: TokenRecord, password: string): Promise<boolean> {
    return token.password_hash !== null && (await verifyPassword(password, token.password_hash));
  }

  /**
   * Returns when a check may run, counted as running (in the same turn as the decision, so checks
   * deciding together see each other): throws 429 at a limit, waits while running checks could reach one.
   */
  private async admit(counted: Counted[]): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const window = windowOf(now);
      const failed = await Promise.all(counted.map((c) => this.store.counters.peek(c.key, window)));
      counted.forEach((c, i) => {
        if (failed[i]! >= c.limit) {
          throw new TooManyRequests(`Too many wrong passwords for ${c.what}: at most ${c.limit} a minute, and every password is refused until the minute is over`, (window + WINDOW_MS - now) / 1000);
        }
      });
      const full = counted.find((c, i) => failed[i]! + this.runningOf(c.key) >= c.limit);
      if (!full) {
        for (const c of counted) this.running.set(c.key, this.runningOf(c.key) + 1);
        return;
      }
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(full.key);
        if (queue) queue.push(resolve);
        else this.waiting.set(full.key, [resolve]);
      });
    }
  }

  private runningOf(key: string): number {
    return this.running.get(key) ?? 0;
  }

  /** A check of `key` ended: the checks waiting on it look again. */
  private ended(key: string): void {
    const left = this.runningOf(key) - 1;
    if (left > 0) this.running.set(key, left);
    else this.running.delete(key);
    const waiters = this.waiting.get(key);
    this.waiting.delete(key);
    for (const wake of waiters ?? []) wake();
  }
}

function windowOf(now: number): number {
  return now - (now % WINDOW_MS);
}
