// Actions that keep failing are disabled (the seed: a spreadsheet action over its write quota keeps
// failing and is switched off). A streak counts consecutive captures on which an action ran and
// failed; a run without an error ends it. Streaks live in the store so every process adds to the
// same count; each process keeps the set of actions with a streak (refreshed from the store) so
// that a success costs a write only when there is a streak to end.
import type { Clock, Logger } from '@capture/sdk';
import type { Store, TokenRecord } from '../store/types.js';
import type { WorkflowService } from '../workflows/service.js';
import type { ChainResult } from '@capture/sdk/runner';

const REFRESH_MS = 30_000;
/** What a run that disabled nothing gets: shared, so frozen. */
const NO_LINES: Promise<readonly string[]> = Promise.resolve(Object.freeze([]));

export class FailureTracker {
  private known = new Set<string>();
  private refreshedAt = -Infinity;

  constructor(
    private readonly store: Pick<Store, 'actionFailures'>,
    private readonly workflows: Pick<WorkflowService, 'disable'>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly logger: Logger,
    /** Consecutive failures that disable an action; 0 never disables. */
    private readonly threshold: number,
  ) {}

  /** Records one capture's chain run; returns output lines for actions it disabled. */
  record(token: TokenRecord, result: Pick<ChainResult, 'ran' | 'errors'>): Promise<readonly string[]> {
    // Most runs: no error and no streak to end (and the known streaks fresh): nothing to do, at once.
    if (this.threshold <= 0 || (!result.errors.length && !this.known.size && this.clock.now() - this.refreshedAt <= REFRESH_MS)) return NO_LINES;
    return this.#record(token, result);
  }

  async #record(token: TokenRecord, result: Pick<ChainResult, 'ran' | 'errors'>): Promise<readonly string[]> {
    const lines: string[] = [];
    try {
      const now = this.clock.now();
      if (now - this.refreshedAt > REFRESH_MS) {
        this.refreshedAt = now;
        this.known = new Set(await this.store.actionFailures.failing());
      }
      if (!result.errors.length && !this.known.size) return lines;
      const failed = new Set(result.errors.map((e) => e.action).filter((id) => id && result.ran.includes(id)));
      const ended = result.ran.filter((id) => !failed.has(id) && this.known.has(id));
      if (ended.length) {
        await this.store.actionFailures.reset(ended);
        for (const id of ended) this.known.delete(id);
      }
      for (const id of failed) {
        const streak = await this.store.actionFailures.fail(id, token.uuid, now);
        this.known.add(id);
        if (streak >= this.threshold && (await this.workflows.disable(token, id))) {
          await this.store.actionFailures.reset([id]);
          this.known.delete(id);
          lines.push(`Action ${id} failed on ${streak} captures in a row and was disabled; enable it again with PUT /token/${token.uuid}/actions/${id}`);
          this.logger.warn('Action disabled after consecutive failures', { token: token.uuid, action: id, failures: streak });
        }
      }
    } catch (e) {
      this.logger.warn('Could not record action failures', { token: token.uuid, error: e instanceof Error ? e.message : String(e) });
    }
    return lines;
  }
}
