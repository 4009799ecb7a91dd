// Replay (webhook.site's "Replay Custom Actions"): runs a token's actions again on its stored
// requests, or forwards them to a URL, for all of them or those matching a search query, up to
// 100,000, as a background job. The job's state (status, progress, summary, the first failures)
// lives in the store, so the API and page of any instance see it and can cancel it.
//
// The requests are walked in pages by keyset (the query AND a sorting range past the last one
// seen), so a replay never holds more than a page and never counts past an offset. Unordered
// replays run a few requests at once; `ordered` runs one at a time in request order. Either way it
// yields to the event loop between requests, so captures are not starved.
import { randomUUID } from 'node:crypto';
import type { ActionsHook } from '../capture/pipeline.js';
import type { Logger } from '../logger.js';
import { parseQuery, type QueryNode } from '../store/query/index.js';
import type { ReplayLogEntry, ReplayPatch, ReplayRecord, RequestRecord, Store, TokenRecord } from '../store/types.js';
import type { Clock } from '../util/time.js';

export const REPLAY_JOB = 'replay';
/** The most requests one replay processes. */
export const MAX_REPLAY_REQUESTS = 100_000;
/** Replays kept per token (the oldest are forgotten). */
export const REPLAYS_KEPT = 20;
/** Failures and skips kept in a replay's log. */
export const REPLAY_LOG_MAX = 100;
/** Requests read per page of the walk. */
const PAGE = 100;
/** Requests in flight at once when the order is not guaranteed. */
export const UNORDERED_CONCURRENCY = 4;
/** How often progress is written and a cancel from another instance is looked for. */
const CHECK_EVERY_MS = 500;
/** How often a running replay tells the scheduler it is alive (keeps the job's lock). */
const BEAT_EVERY_MS = 30_000;
/**
 * A replay still `running` that has written no progress for this long was left by an instance that
 * stopped without finishing it (progress is written at least every few seconds while it runs). Shorter
 * than the job's lock (10 minutes), so by the time the scheduler hands the job on it is certain.
 */
export const STALE_AFTER_MS = 2 * 60_000;

export interface ReplayInput {
  mode: 'actions' | 'forward';
  url?: string | null;
  method?: string | null;
  query?: string | null;
  sorting: 'oldest' | 'newest';
  ordered: boolean;
  limit: number;
}

/** What happened to one request. */
export type ItemOutcome = { outcome: 'ran' } | { outcome: 'failed' | 'skipped'; message: string };

/** A forward answered by its target, or thrown as an error (ValidationError: the URL itself is refused). */
export type ForwardFn = (record: RequestRecord, url: string, method?: string) => Promise<{ status: number }>;

export class ReplayAborted extends Error {}

/** Why a replay still running stops when its process shuts down. */
export const SHUTDOWN_MESSAGE = 'The service stopped while the replay ran; start it again';

export interface ReplayDeps {
  store: Store;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /** The token's actions as a capture runs them (inline now, queued ones as jobs); null when it has none. */
  actions: () => ActionsHook | null;
  forward: ForwardFn;
  /** A failure that stops the whole replay (e.g. the URL is refused by the outbound policy) rather than one request. */
  isFatal: (err: unknown) => boolean;
}

export class ReplayService {
  /** Replays running in this process, to stop at once on cancel. */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: ReplayDeps) {}

  /** A new replay record, queued (the caller starts the job). */
  async create(token: TokenRecord, input: ReplayInput): Promise<ReplayRecord> {
    const now = this.deps.clock.now();
    const query = input.query ? parseQuery(input.query) : null;
    const { total } = await this.deps.store.requests.list(token.uuid, { query, now, sorting: input.sorting, page: 1, perPage: 1 });
    const r: ReplayRecord = {
      id: randomUUID(),
      token_id: token.uuid,
      user_id: token.user_id,
      mode: input.mode,
      url: input.mode === 'forward' ? (input.url ?? null) : null,
      method: input.mode === 'forward' ? (input.method ?? null) : null,
      query: input.query || null,
      sorting: input.sorting,
      ordered: input.ordered,
      limit: input.limit,
      status: 'queued',
      cancel_requested: false,
      total: Math.min(total, input.limit),
      processed: 0,
      ran: 0,
      failed: 0,
      skipped: 0,
      log: [],
      error: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.deps.store.replays.create(r, REPLAYS_KEPT);
    return r;
  }

  /** Asks a queued or running replay to stop; a queued one stops at once. Null when there is no such replay. */
  async cancel(token: TokenRecord, id: string): Promise<ReplayRecord | null> {
    const r = await this.deps.store.replays.get(token.uuid, id);
    if (!r) return null;
    if (r.status !== 'queued' && r.status !== 'running') return r;
    const now = this.deps.clock.now();
    const patch: ReplayPatch = r.status === 'queued' ? { status: 'cancelled', cancel_requested: true, finished_at: now, updated_at: now } : { cancel_requested: true, updated_at: now };
    this.running.get(id)?.abort(new ReplayAborted());
    return this.deps.store.replays.update(id, patch);
  }

  /** Stops the replays running in this process (shutdown): they end as failed, saying why. */
  stopAll(): void {
    for (const a of this.running.values()) a.abort(new Error(SHUTDOWN_MESSAGE));
  }

  /**
   * Runs a queued replay to the end (the job's handler). `beat` is called every 30 s (the job
   * keeps its lock with it). A replay not queued any more (cancelled, or run by another process)
   * is left alone.
   */
  async run(tokenId: string, id: string, beat: () => Promise<void> = async () => {}): Promise<void> {
    const { store, clock } = this.deps;
    const token = await store.tokens.get(tokenId);
    let r = token ? await store.replays.get(tokenId, id) : null;
    if (token && r?.status === 'running' && clock.now() - r.updated_at > STALE_AFTER_MS) {
      // Its instance stopped mid-run (the scheduler hands the job on after the lock expires).
      await store.replays.update(id, { status: 'failed', error: 'The instance running this replay stopped before it finished; start it again', finished_at: clock.now(), updated_at: clock.now() });
      return;
    }
    if (!token || !r || r.status !== 'queued') return;
    r = await store.replays.update(id, { status: 'running', started_at: clock.now(), updated_at: clock.now() });
    if (!r) return;
    const abort = new AbortController();
    this.running.set(id, abort);
    const counts = { processed: 0, ran: 0, failed: 0, skipped: 0 };
    const log: ReplayLogEntry[] = [];
    let lastCheck = clock.now();
    let lastBeat = clock.now();
    const progress = (): ReplayPatch => ({ ...counts, log: [...log], updated_at: clock.now() });
    /** Writes progress; stops when a cancel was asked for here or through the store. */
    const check = async (force = false) => {
      if (abort.signal.aborted) throw abort.signal.reason instanceof Error ? abort.signal.reason : new ReplayAborted();
      if (!force && clock.now() - lastCheck < CHECK_EVERY_MS) return;
      lastCheck = clock.now();
      if (lastCheck - lastBeat >= BEAT_EVERY_MS) {
        lastBeat = lastCheck;
        await beat();
      }
      const now = await store.replays.update(id, progress());
      if (!now) throw new ReplayAborted(); // the token (and with it the replay) was deleted
      if (now.cancel_requested) throw new ReplayAborted();
    };
    try {
      const settings = r;
      const one = async (record: RequestRecord) => {
        const o = await this.item(token, settings, record);
        counts.processed++;
        counts[o.outcome]++;
        if (o.outcome !== 'ran' && log.length < REPLAY_LOG_MAX) log.push({ request_id: record.uuid, outcome: o.outcome, message: o.message });
        // Between requests, captures get their turn.
        await new Promise((resolve) => setImmediate(resolve));
      };
      for await (const page of this.walk(token, settings)) {
        if (settings.ordered) {
          for (const record of page) {
            await check();
            await one(record);
          }
        } else {
          let next = 0;
          const lane = async () => {
            while (next < page.length) {
              await check();
              await one(page[next++]!);
            }
          };
          await Promise.all(Array.from({ length: Math.min(UNORDERED_CONCURRENCY, page.length) }, lane));
        }
        await check(true);
      }
      await store.replays.update(id, { ...progress(), status: 'done', finished_at: clock.now() });
    } catch (err) {
      const cancelled = err instanceof ReplayAborted;
      if (!cancelled) this.deps.logger.warn('replay failed', { token: tokenId, replay: id, error: String(err) });
      await store.replays.update(id, {
        ...progress(),
        status: cancelled ? 'cancelled' : 'failed',
        error: cancelled ? null : err instanceof Error ? err.message : String(err),
        finished_at: clock.now(),
      });
    } finally {
      this.running.delete(id);
    }
  }

  /** One request: its actions run again (their output replaces the stored one), or it is forwarded. */
  private async item(token: TokenRecord, r: ReplayRecord, record: RequestRecord): Promise<ItemOutcome> {
    try {
      if (r.mode === 'forward') {
        if (record.type !== 'web') return { outcome: 'skipped', message: `Not an HTTP request (${record.type === 'email' ? 'an e-mail' : 'a DNS lookup'})` };
        const answer = await this.deps.forward(record, r.url!, r.method ?? undefined);
        return answer.status >= 400 ? { outcome: 'failed', message: `The target answered HTTP ${answer.status}` } : { outcome: 'ran' };
      }
      const actions = this.deps.actions();
      if (!actions) return { outcome: 'skipped', message: 'Actions are not available on this server' };
      const start = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
      const { requests } = this.deps.store;
      // Cleared first: queued actions of this run append their output when they run, maybe
      // before the inline output below is written; whatever they added is kept after it.
      await requests.update(token.uuid, record.uuid, { custom_action_output: [], custom_action_errors: [], updated_at: this.deps.clock.now() });
      const outcome = await actions(token, record, new Map(), start);
      if (!outcome) {
        await requests.update(token.uuid, record.uuid, { custom_action_output: record.custom_action_output, custom_action_errors: record.custom_action_errors, updated_at: record.updated_at });
        return { outcome: 'skipped', message: 'The token has no actions' };
      }
      const queued = await requests.get(token.uuid, record.uuid);
      if (!queued) return { outcome: 'skipped', message: 'The request was deleted meanwhile' };
      await requests.update(token.uuid, record.uuid, {
        custom_action_output: [...outcome.output, ...queued.custom_action_output],
        custom_action_errors: [...outcome.errors, ...queued.custom_action_errors],
        updated_at: this.deps.clock.now(),
      });
      if (outcome.errors.length) {
        const first = outcome.errors[0] as { message?: unknown } | undefined;
        return { outcome: 'failed', message: `${outcome.errors.length} action error(s)${typeof first?.message === 'string' ? `: ${first.message}` : ''}` };
      }
      return { outcome: 'ran' };
    } catch (err) {
      if (this.deps.isFatal(err)) throw err;
      return { outcome: 'failed', message: err instanceof Error ? err.message : String(err) };
    }
  }

  /** The matching requests in pages, oldest or newest first, at most `limit` in all. */
  private async *walk(token: TokenRecord, r: ReplayRecord): AsyncGenerator<RequestRecord[]> {
    const base = r.query ? parseQuery(r.query) : null;
    let left = r.limit;
    let cursor: number | null = null;
    // Requests at the cursor's sorting key already handed out (ties are rare, but kept apart).
    let atCursor = new Set<string>();
    let pageNo = 1;
    while (left > 0) {
      const range: QueryNode | null =
        cursor === null
          ? null
          : r.sorting === 'oldest'
            ? { kind: 'range', field: 'sorting', from: String(cursor), to: null, includeFrom: true, includeTo: true, pos: 0 }
            : { kind: 'range', field: 'sorting', from: null, to: String(cursor), includeFrom: true, includeTo: true, pos: 0 };
      const query = range && base ? { kind: 'and' as const, children: [base, range] } : (range ?? base);
      const perPage = Math.min(PAGE, left + atCursor.size);
      const { items } = await this.deps.store.requests.list(token.uuid, { query, sorting: r.sorting, page: pageNo, perPage, now: this.deps.clock.now() });
      const fresh = items.filter((i) => !atCursor.has(i.uuid)).slice(0, left);
      if (!fresh.length) {
        // A full page of requests all at the cursor's key: look past them.
        if (items.length === perPage && items.every((i) => i.sorting === cursor)) {
          pageNo++;
          continue;
        }
        return;
      }
      const last = fresh[fresh.length - 1]!.sorting;
      if (last !== cursor) {
        atCursor = new Set();
        pageNo = 1;
      }
      for (const i of fresh) if (i.sorting === last) atCursor.add(i.uuid);
      cursor = last;
      left -= fresh.length;
      yield fresh;
    }
  }
}
