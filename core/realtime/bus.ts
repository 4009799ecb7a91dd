// The realtime event bus: what happened to a token's requests and settings, published after the
// store committed it. Consumers (SSE, socket.io, other modules) subscribe per token. Events of other
// processes on the same store arrive through a Feed (feed.ts) and are delivered like local ones.
import type { RequestRecord, TokenRecord } from '../store/types.js';

/** `request.deleted` data: one request, all of them, or those matching a filter (reload the list). */
export type RequestDeletedData = { uuid: string } | { all: true } | { filter: { query: string | null; date_from: string | null; date_to: string | null }; count: number };

export type RealtimeEvent =
  | { type: 'request.created'; tokenId: string; request: RequestRecord }
  | { type: 'request.deleted'; tokenId: string; data: RequestDeletedData }
  | { type: 'token.updated'; tokenId: string; token: TokenRecord }
  | { type: 'token.deleted'; tokenId: string };

export type RealtimeListener = (event: RealtimeEvent) => void;

/**
 * A user's credentials changed: one of their API keys was revoked, or the user was deleted. Streams
 * opened with that user's key check their access again (access-guard.ts). Whatever revokes a key
 * or deletes a user publishes it; a token's password or owner changing needs no event of its own,
 * since `token.updated` carries the new record.
 */
export interface AccessEvent {
  type: 'user.access_changed';
  userId: number;
}

export type AccessListener = (event: AccessEvent) => void;

/** How an event travels to other processes (request.created needs none: the store carries it). */
export interface SharedEvent {
  type: 'request.deleted' | 'token.updated' | 'token.deleted' | 'user.access_changed';
  /** '' for user.access_changed, whose data is {user_id}. */
  tokenId: string;
  data: unknown;
}

export interface RealtimeBus {
  /** Publishes a committed change to this process's subscribers and to the other processes. */
  publish(event: RealtimeEvent): void;
  /** Listens to one token's events (by UUID); returns the unsubscribe function. */
  subscribe(tokenId: string, listener: RealtimeListener): () => void;
  /** Listens to every token's events. */
  subscribeAll(listener: RealtimeListener): () => void;
  /** Listeners of one token (for tests and for feeds that only poll watched tokens). */
  subscriberCount(tokenId: string): number;
  /** Tokens with at least one listener. */
  watchedTokens(): string[];
  hasWatchers(): boolean;
  /** Whether some listener would receive this token's events. */
  watches(tokenId: string): boolean;
  /** Feed side: an event from another process, delivered here only. */
  deliverRemote(event: RealtimeEvent): void;
  /** Feed side: whether this request's creation was already delivered here. */
  seen(requestUuid: string): boolean;
  /** Publishes a change of a user's credentials here and to the other processes. */
  publishAccess(event: AccessEvent): void;
  /** Listens to changes of one user's credentials; returns the unsubscribe function. */
  subscribeAccess(userId: number, listener: AccessListener): () => void;
  /** Feed side: another process's change of a user's credentials, delivered here only. */
  deliverRemoteAccess(event: AccessEvent): void;
}

export interface BusOptions {
  /** Called with each locally published event that other processes must hear of. */
  share?: (e: SharedEvent) => void;
  onListenerError?: (err: unknown) => void;
  /** How long a delivered request UUID is remembered to drop duplicates (ms). */
  dedupeMs?: number;
  now?: () => number;
}

export function createBus(opts: BusOptions = {}): RealtimeBus & { setShare(share: (e: SharedEvent) => void): void } {
  const byToken = new Map<string, Set<RealtimeListener>>();
  const all = new Set<RealtimeListener>();
  // Kept apart from the token listeners, so the per-capture delivery never looks at them.
  const byUser = new Map<number, Set<AccessListener>>();
  const dedupeMs = opts.dedupeMs ?? 120_000;
  const now = opts.now ?? Date.now;
  // Insertion-ordered, so expired entries are at the front.
  const recent = new Map<string, number>();
  let share = opts.share;

  function remember(uuid: string): boolean {
    const t = now();
    for (const [k, exp] of recent) {
      if (exp > t) break;
      recent.delete(k);
    }
    if (recent.has(uuid)) return false;
    recent.set(uuid, t + dedupeMs);
    return true;
  }

  function deliver(event: RealtimeEvent): void {
    const own = byToken.get(event.tokenId);
    // Nobody listens: nothing to deliver, nor to remember (which keeps memory flat under load).
    if (!own && all.size === 0) return;
    if (event.type === 'request.created' && !remember(event.request.uuid)) return;
    const listeners = [...(own ?? []), ...all];
    for (const l of listeners) {
      try {
        l(event);
      } catch (err) {
        opts.onListenerError?.(err);
      }
    }
  }

  function add(set: Set<RealtimeListener>, l: RealtimeListener, tokenId?: string): () => void {
    set.add(l);
    return () => {
      set.delete(l);
      if (tokenId !== undefined && set.size === 0 && byToken.get(tokenId) === set) byToken.delete(tokenId);
    };
  }

  function deliverAccess(event: AccessEvent): void {
    for (const l of [...(byUser.get(event.userId) ?? [])]) {
      try {
        l(event);
      } catch (err) {
        opts.onListenerError?.(err);
      }
    }
  }

  return {
    publish(event) {
      deliver(event);
      if (!share) return;
      try {
        if (event.type === 'request.deleted') share({ type: event.type, tokenId: event.tokenId, data: event.data });
        else if (event.type === 'token.updated' || event.type === 'token.deleted') share({ type: event.type, tokenId: event.tokenId, data: {} });
      } catch (err) {
        opts.onListenerError?.(err);
      }
    },
    subscribe(tokenId, listener) {
      let set = byToken.get(tokenId);
      if (!set) byToken.set(tokenId, (set = new Set()));
      return add(set, listener, tokenId);
    },
    subscribeAll(listener) {
      return add(all, listener);
    },
    subscriberCount(tokenId) {
      return byToken.get(tokenId)?.size ?? 0;
    },
    watchedTokens() {
      return [...byToken.keys()];
    },
    hasWatchers() {
      return byToken.size > 0 || all.size > 0;
    },
    watches(tokenId) {
      return all.size > 0 || byToken.has(tokenId);
    },
    deliverRemote: deliver,
    seen(uuid) {
      const exp = recent.get(uuid);
      return exp !== undefined && exp > now();
    },
    publishAccess(event) {
      deliverAccess(event);
      try {
        share?.({ type: event.type, tokenId: '', data: { user_id: event.userId } });
      } catch (err) {
        opts.onListenerError?.(err);
      }
    },
    subscribeAccess(userId, listener) {
      let set = byUser.get(userId);
      if (!set) byUser.set(userId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && byUser.get(userId) === set) byUser.delete(userId);
      };
    },
    deliverRemoteAccess: deliverAccess,
    setShare(s) {
      share = s;
    },
  };
}
