// Fan-out across processes that share one store. A Feed delivers other processes' events to the
// local bus and shares this process's non-capture events with them. Captures need no sharing: the
// requests table/collection is itself the feed. Implementations: SQLite polling (this file), MongoDB
// change streams or polling (mongo-feed.ts, loaded only when the store is MongoDB).
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Logger } from '../logger.js';
import { captureFeed } from '../store/sqlite/requests/index.js';
import type { Store } from '../store/types.js';
import type { RealtimeBus, SharedEvent } from './bus.js';
import { deliverSharedEvent, noFeed, type Feed, type FeedOptions } from './shared-events.js';

export type { Feed, FeedOptions } from './shared-events.js';

/** The feed that fits the store: none for an in-memory SQLite database (no other process can open it). */
export async function createFeed(store: Store, logger: Logger, opts: FeedOptions = {}): Promise<Feed> {
  const native = store.database?.();
  if (native?.kind === 'sqlite') return native.db.memory ? noFeed : sqliteFeed(native.db, store, logger, opts);
  if (native?.kind === 'mongo') {
    const { mongoFeed } = await import('./mongo-feed.js');
    return mongoFeed(native.db, store, logger, opts);
  }
  return noFeed;
}

const EVENT_TTL_MS = 10 * 60_000;

/**
 * SQLite: polls the request engine for the captures committed since the last poll (captureFeed: in
 * commit order, nothing committed skipped) and the realtime_events table (migration 6) for
 * deletions and token changes of other processes.
 */
export function sqliteFeed(db: Database, store: Store, logger: Logger, opts: FeedOptions = {}): Feed {
  const origin = randomUUID();
  const pollMs = opts.pollMs ?? 200;
  const captures = captureFeed(db);
  const maxEvent = db.prepare<[], { n: number }>('SELECT coalesce(max(id), 0) AS n FROM realtime_events');
  const newEvents = db.prepare<[number], { id: number; origin: string; token_id: string; type: SharedEvent['type']; data: string }>(
    'SELECT id, origin, token_id, type, data FROM realtime_events WHERE id > ? ORDER BY id LIMIT 1000',
  );
  const insertEvent = db.prepare('INSERT INTO realtime_events (origin, token_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)');
  const prune = db.prepare('DELETE FROM realtime_events WHERE created_at < ?');

  let lastSeq = 0;
  let lastEvent = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let lastPrune = 0;
  let bus: RealtimeBus | null = null;

  async function poll(b: RealtimeBus): Promise<void> {
    if (!b.hasWatchers()) {
      // Nobody to tell: skip what was committed meanwhile without reading it.
      lastSeq = Math.max(lastSeq, captures.newest());
      lastEvent = Math.max(lastEvent, maxEvent.get()?.n ?? 0);
      return;
    }
    for (;;) {
      const rows = captures.after(lastSeq, 1000);
      for (const row of rows) {
        lastSeq = row.seq;
        if (!b.watches(row.token_id) || b.seen(row.uuid)) continue;
        const request = await store.requests.get(row.token_id, row.uuid);
        if (request) b.deliverRemote({ type: 'request.created', tokenId: row.token_id, request });
      }
      if (rows.length < 1000) break;
    }
    for (;;) {
      const rows = newEvents.all(lastEvent);
      for (const row of rows) {
        lastEvent = row.id;
        if (row.origin === origin) continue;
        await deliverSharedEvent(b, store, { type: row.type, tokenId: row.token_id, data: JSON.parse(row.data) });
      }
      if (rows.length < 1000) break;
    }
    const now = Date.now();
    if (now - lastPrune > 60_000) {
      lastPrune = now;
      prune.run(now - EVENT_TTL_MS);
    }
  }

  function tick(): void {
    if (running || !bus) return;
    const b = bus;
    running = poll(b)
      .catch((err) => logger.warn('realtime: polling the store failed', { err }))
      .finally(() => {
        running = null;
      });
  }

  return {
    kind: 'sqlite-poll',
    async start(b) {
      bus = b;
      lastSeq = captures.newest();
      lastEvent = maxEvent.get()?.n ?? 0;
      timer = setInterval(tick, pollMs);
      timer.unref();
    },
    share(e) {
      if (!db.open) return;
      insertEvent.run(origin, e.tokenId, e.type, JSON.stringify(e.data ?? {}), Date.now());
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      bus = null;
      await running;
    },
  };
}
