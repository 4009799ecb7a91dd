// What every cross-process feed shares (core/realtime/feed.ts picks one for the store; the MongoDB
// one, core/realtime/mongo-feed.ts, is loaded only when the store is MongoDB): the Feed interface and
// turning another process's shared event back into a local bus event.
import type { Store } from '../store/types.js';
import type { RealtimeBus, RealtimeEvent, RequestDeletedData, SharedEvent } from './bus.js';

export interface Feed {
  readonly kind: 'none' | 'sqlite-poll' | 'mongo-change-stream' | 'mongo-poll';
  start(bus: RealtimeBus): Promise<void>;
  /** Tells the other processes about a locally published event. */
  share(e: SharedEvent): void;
  stop(): Promise<void>;
}

export interface FeedOptions {
  /** Polling interval (ms) where polling is used. */
  pollMs?: number;
}

export const noFeed: Feed = {
  kind: 'none',
  async start() {},
  share() {},
  async stop() {},
};

/** Delivers another process's shared event to this process's listeners, when some would hear it. */
export async function deliverSharedEvent(bus: RealtimeBus, store: Store, e: SharedEvent): Promise<void> {
  if (e.type === 'user.access_changed') {
    const userId = (e.data as { user_id?: unknown } | null)?.user_id;
    if (typeof userId === 'number') bus.deliverRemoteAccess({ type: e.type, userId });
    return;
  }
  if (!bus.watches(e.tokenId)) return;
  const event = await materialize(store, e);
  if (event) bus.deliverRemote(event);
}

/** Turns a shared event of another process back into a bus event (loading what it refers to). */
export async function materialize(store: Store, e: SharedEvent): Promise<RealtimeEvent | null> {
  switch (e.type) {
    case 'request.deleted':
      return { type: e.type, tokenId: e.tokenId, data: e.data as RequestDeletedData };
    case 'token.updated': {
      const token = await store.tokens.get(e.tokenId);
      return token ? { type: e.type, tokenId: e.tokenId, token } : null;
    }
    case 'token.deleted':
      return { type: e.type, tokenId: e.tokenId };
    default:
      return null;
  }
}
