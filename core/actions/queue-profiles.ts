// Queue Profiles: named configurations that throttle the queued actions of a user's tokens and run
// the jobs of one profile one at a time, in the order they were queued, on every instance.
//
// The store holds the state, so several processes agree (Agenda runs the jobs):
// - `qp:<id>:seq` numbers the jobs as they are queued (the ticket's `seq`, from 1);
// - `qp:<id>:done` counts the jobs that have finished (run, expired or dropped): the job numbered
//   done + 1 is the head of the line, and only the head may run;
// - `qp:<id>:starts` records when jobs started, a sliding window of `rate_period` seconds: a job
//   starts only when fewer than `rate_limit` started in the period before it, so no span of
//   `rate_period` seconds holds more than `rate_limit` starts (clock-aligned windows let 2 x
//   rate_limit through around a window's edge).
// A job that may not run yet is queued again for when it may (when the oldest start in the
// window leaves it, or the estimated time its turn comes); past its lifetime (from its first planned run) it is given up and
// reported. Every way a job ends counts it done, so the next one's turn comes.
import type { Clock } from '../util/time.js';
import type { CounterRepo, QueueProfileRecord } from '../store/types.js';

/** Counters that never expire in practice (the repository sweeps them after a century). */
const FOREVER_MS = 100 * 365 * 86_400_000;
/** `windowStart` of the counters above (0 is hitWindow's). */
const ALWAYS = 1;
/** How soon a waiting job looks again, at least and at most. */
const MIN_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;

export const MAX_INITIAL_DELAY_S = 86_400;
export const MAX_RATE_PERIOD_S = 86_400;
export const MAX_RATE_LIMIT = 100_000;
/** Webhook.site's longest lifetime (its Enterprise plan's): 7 days. */
export const MAX_JOB_LIFETIME_S = 7 * 86_400;
export const DEFAULT_JOB_LIFETIME_S = 86_400;
/** Profiles per user. */
export const MAX_PROFILES = 100;

/** What a queued job carries of its profile. */
export interface ProfileTicket {
  id: string;
  name: string;
  seq: number;
  /** When the job is given up (ms). */
  expires: number;
}

export type ProfileDecision = { kind: 'run' } | { kind: 'wait'; at: number; why: 'order' | 'rate' } | { kind: 'expired' };

export class QueueProfileGate {
  constructor(
    private readonly counters: CounterRepo,
    private readonly clock: Clock,
  ) {}

  /** A place in the profile's line for a job first planned to run at `runAt`. */
  async ticket(profile: QueueProfileRecord, runAt: number): Promise<ProfileTicket> {
    const seq = await this.counters.hit(`qp:${profile.id}:seq`, ALWAYS, FOREVER_MS);
    return { id: profile.id, name: profile.name, seq, expires: runAt + profile.job_lifetime * 1000 };
  }

  /**
   * Whether the job may run now. `profile` is null when it was deleted meanwhile: the line is kept
   * (the jobs queued under it still run in order) but no longer throttled.
   */
  async decide(t: ProfileTicket, profile: QueueProfileRecord | null): Promise<ProfileDecision> {
    const now = this.clock.now();
    if (now > t.expires) return { kind: 'expired' };
    // A job that would wait past its lifetime wakes when it ends, to be given up then.
    const wait = (at: number, why: 'order' | 'rate'): ProfileDecision => ({ kind: 'wait', at: Math.min(at, t.expires + 1), why });
    const done = await this.counters.peek(`qp:${t.id}:done`, ALWAYS);
    const ahead = t.seq - 1 - done;
    if (ahead > 0) {
      const perJobMs = profile ? (profile.rate_period * 1000) / profile.rate_limit : 0;
      return wait(now + Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, ahead * perJobMs)), 'order');
    }
    if (!profile) return { kind: 'run' };
    const admission = await this.counters.admit(`qp:${t.id}:starts`, now, profile.rate_limit, profile.rate_period * 1000);
    return admission.admitted ? { kind: 'run' } : wait(admission.retryAt, 'rate');
  }

  /** The job ended (ran, expired, or had nothing left to run): the next one's turn. */
  async finish(t: ProfileTicket): Promise<void> {
    await this.counters.hit(`qp:${t.id}:done`, ALWAYS, FOREVER_MS);
  }
}
