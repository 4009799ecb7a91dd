// Callers waiting for a matching request (GET /token/{id}/requests/wait). A waiter checks the store
// once, then waits on the bus: captures of every kind (HTTP, e-mail, DNS) and of other processes
// arrive there as request.created, so nothing polls the store per waiter.
//
// The search language has no in-memory matcher (what a query means lives in the SQL and Mongo
// compilers), so when a request arrives the store is asked whether it matches: once per distinct
// query text of the token, shared by all its waiters. 1,000 waiters on one token with one query
// cost one subscription and one lookup per capture.
import type { QueryNode } from '../store/query/index.js';
import type { Millis, RequestRecord, Store } from '../store/types.js';
import type { RealtimeBus, RealtimeEvent } from './bus.js';

export interface WaitSpec {
  tokenId: string;
  query: QueryNode | null;
  /** The query as written: waiters with the same text share one lookup per capture. */
  queryText: string;
  /** Only requests with a larger sorting key qualify; null: any. */
  afterSorting: number | null;
  timeoutMs: number;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

export type WaitOutcome =
  | { kind: 'found'; request: RequestRecord }
  | { kind: 'timeout' }
  /** The token was deleted while waiting. */
  | { kind: 'gone' }
  | { kind: 'aborted' }
  /** The service is shutting down. */
  | { kind: 'closing' };

export interface RequestWaiters {
  wait(spec: WaitSpec): Promise<WaitOutcome>;
  /** Waiters of one token, or of all tokens. */
  count(tokenId?: string): number;
  /** Answers every waiter with `closing` (shutdown). */
  closeAll(): void;
}

interface Waiter {
  after: number | null;
  settle(outcome: WaitOutcome): void;
}

interface QueryGroup {
  query: QueryNode | null;
  waiters: Set<Waiter>;
}

interface TokenGroup {
  unsubscribe: () => void;
  byQuery: Map<string, QueryGroup>;
}

export interface WaitersOptions {
  store: Store;
  bus: RealtimeBus;
  now: () => Millis;
  onError?: (err: unknown) => void;
}

const both = (a: QueryNode | null, b: QueryNode): QueryNode => (a ? { kind: 'and', children: [a, b] } : b);
const newerThan = (sorting: number): QueryNode => ({ kind: 'range', field: 'sorting', from: String(sorting), to: null, includeFrom: false, includeTo: true, pos: 0 });
const isRequest = (uuid: string): QueryNode => ({ kind: 'term', field: 'uuid', value: uuid, quoted: true, pos: 0 });

export function createRequestWaiters(opts: WaitersOptions): RequestWaiters {
  const { store, bus, now } = opts;
  const tokens = new Map<string, TokenGroup>();

  async function firstMatch(tokenId: string, query: QueryNode, sorting: 'newest' | 'oldest'): Promise<RequestRecord | null> {
    const page = await store.requests.list(tokenId, { query, sorting, page: 1, perPage: 1, now: now() });
    return page.items[0] ?? null;
  }

  function wake(group: QueryGroup, request: RequestRecord): void {
    for (const w of [...group.waiters]) if (w.after === null || request.sorting > w.after) w.settle({ kind: 'found', request });
  }

  function onEvent(tokenId: string, event: RealtimeEvent): void {
    const token = tokens.get(tokenId);
    if (!token) return;
    if (event.type === 'token.deleted') {
      for (const g of [...token.byQuery.values()]) for (const w of [...g.waiters]) w.settle({ kind: 'gone' });
      return;
    }
    if (event.type !== 'request.created') return;
    for (const group of token.byQuery.values()) {
      if (group.query === null) {
        wake(group, event.request);
        continue;
      }
      // One lookup for the whole group: does the new request match this query?
      firstMatch(tokenId, both(group.query, isRequest(event.request.uuid)), 'oldest').then(
        (match) => match && wake(group, match),
        (err) => opts.onError?.(err),
      );
    }
  }

  function join(spec: WaitSpec, waiter: Waiter): void {
    let token = tokens.get(spec.tokenId);
    if (!token) {
      const unsubscribe = bus.subscribe(spec.tokenId, (e) => onEvent(spec.tokenId, e));
      tokens.set(spec.tokenId, (token = { unsubscribe, byQuery: new Map() }));
    }
    let group = token.byQuery.get(spec.queryText);
    if (!group) token.byQuery.set(spec.queryText, (group = { query: spec.query, waiters: new Set() }));
    group.waiters.add(waiter);
  }

  function leave(spec: WaitSpec, waiter: Waiter): void {
    const token = tokens.get(spec.tokenId);
    const group = token?.byQuery.get(spec.queryText);
    if (!token || !group) return;
    group.waiters.delete(waiter);
    if (group.waiters.size === 0) token.byQuery.delete(spec.queryText);
    if (token.byQuery.size === 0) {
      token.unsubscribe();
      tokens.delete(spec.tokenId);
    }
  }

  return {
    wait(spec) {
      return new Promise<WaitOutcome>((resolve, reject) => {
        let done = false;
        const finish = () => {
          done = true;
          clearTimeout(timer);
          spec.signal.removeEventListener('abort', onAbort);
          leave(spec, waiter);
        };
        const waiter: Waiter = {
          after: spec.afterSorting,
          settle(outcome) {
            if (done) return;
            finish();
            resolve(outcome);
          },
        };
        const onAbort = () => waiter.settle({ kind: 'aborted' });
        const timer = setTimeout(() => waiter.settle({ kind: 'timeout' }), spec.timeoutMs);
        if (spec.signal.aborted) return onAbort();
        spec.signal.addEventListener('abort', onAbort);
        // Subscribed before the store is checked, so a request stored in between is not missed.
        join(spec, waiter);
        const already = spec.afterSorting === null ? spec.query : both(spec.query, newerThan(spec.afterSorting));
        const check = already ? firstMatch(spec.tokenId, already, 'newest') : store.requests.latest(spec.tokenId);
        check.then(
          (match) => match && waiter.settle({ kind: 'found', request: match }),
          (err) => {
            if (done) return;
            finish();
            reject(err);
          },
        );
      });
    },
    count(tokenId) {
      const groups = tokenId === undefined ? [...tokens.values()] : [tokens.get(tokenId)].filter((t) => t !== undefined);
      let n = 0;
      for (const t of groups) for (const g of t.byQuery.values()) n += g.waiters.size;
      return n;
    },
    closeAll() {
      for (const t of [...tokens.values()]) for (const g of [...t.byQuery.values()]) for (const w of [...g.waiters]) w.settle({ kind: 'closing' });
    },
  };
}
