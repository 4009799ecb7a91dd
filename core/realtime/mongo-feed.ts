// MongoDB fan-out: change streams where the server opens one (a replica set or sharded cluster);
// polling where it does not (a standalone mongod, a wire-compatible server without change streams)
// or when a change stream fails. Deletions and token changes travel through the `realtime_events`
// collection; captures are read from `requests` itself. Old events are pruned here as well as by
// the TTL index, since not every server runs a TTL monitor.
import { randomUUID } from 'node:crypto';
import { ObjectId, type ChangeStream, type Collection, type Db } from 'mongodb';
import type { Logger } from '../logger.js';
import { cols, toRequest, type RequestDoc } from '../store/mongo/docs.js';
import { supportsChangeStreams } from '../store/mongo/capabilities.js';
import type { Store } from '../store/types.js';
import type { RealtimeBus, SharedEvent } from './bus.js';
import { deliverSharedEvent, type Feed, type FeedOptions } from './shared-events.js';

interface EventDoc {
  _id?: ObjectId;
  origin: string;
  token_id: string;
  type: SharedEvent['type'];
  data: unknown;
  created_at: Date;
}

/** Captures committed late (slow actions, clock skew between processes) are still found. */
const POLL_WINDOW_MS = 60_000;
const EVENT_TTL_SECONDS = 600;
const PRUNE_EVERY_MS = 60_000;
export const EVENTS_COLLECTION = 'realtime_events';

export function mongoFeed(db: Db, store: Store, logger: Logger, opts: FeedOptions = {}): Feed {
  const c = cols(db);
  const origin = randomUUID();
  const pollMs = opts.pollMs ?? 250;
  const events: Collection<EventDoc> = c.db.collection<EventDoc>(EVENTS_COLLECTION);
  let bus: RealtimeBus | null = null;
  let streams: ChangeStream[] = [];
  let timer: NodeJS.Timeout | null = null;
  let pruneTimer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let kind: Feed['kind'] = 'mongo-poll';
  /** Event ids already handled by the poller, with their expiry. */
  const seenEvents = new Map<string, number>();

  async function deliverShared(doc: EventDoc): Promise<void> {
    if (!bus || doc.origin === origin) return;
    await deliverSharedEvent(bus, store, { type: doc.type, tokenId: doc.token_id, data: doc.data });
  }

  function deliverRequest(doc: RequestDoc): void {
    if (!bus || !bus.watches(doc.token_id) || bus.seen(doc.uuid ?? doc._id)) return;
    bus.deliverRemote({ type: 'request.created', tokenId: doc.token_id, request: toRequest(doc) });
  }

  async function poll(): Promise<void> {
    const b = bus;
    if (!b) return;
    const now = Date.now();
    const tokens = b.watchedTokens();
    if (tokens.length) {
      const rows = await c.requests.find({ token_id: { $in: tokens }, created_at: { $gte: now - POLL_WINDOW_MS } }, { projection: { uuid: 1, token_id: 1 } }).toArray();
      for (const row of rows) {
        const uuid = row.uuid ?? row._id;
        if (b.seen(uuid)) continue;
        const request = await store.requests.get(row.token_id, uuid);
        if (request) b.deliverRemote({ type: 'request.created', tokenId: row.token_id, request });
      }
    }
    for (const [id, exp] of seenEvents) {
      if (exp > now) break;
      seenEvents.delete(id);
    }
    const since = ObjectId.createFromTime(Math.floor((now - POLL_WINDOW_MS) / 1000));
    for (const doc of await events
      .find({ _id: { $gt: since } })
      .sort({ _id: 1 })
      .toArray()) {
      const id = doc._id!.toHexString();
      if (seenEvents.has(id)) continue;
      seenEvents.set(id, now + 2 * POLL_WINDOW_MS);
      await deliverShared(doc);
    }
  }

  function startPolling(): void {
    kind = 'mongo-poll';
    if (timer || stopped) return;
    timer = setInterval(() => {
      if (running) return;
      running = poll()
        .catch((err) => logger.warn('realtime: polling MongoDB failed', { err }))
        .finally(() => {
          running = null;
        });
    }, pollMs);
    timer.unref();
  }

  async function closeStreams(): Promise<void> {
    const open = streams;
    streams = [];
    await Promise.all(open.map((s) => s.close().catch(() => undefined)));
  }

  function fallBack(err: unknown): void {
    if (stopped || kind === 'mongo-poll') return;
    logger.warn('realtime: MongoDB change stream failed, polling instead', { err });
    void closeStreams();
    startPolling();
  }

  function prune(): void {
    events.deleteMany({ created_at: { $lt: new Date(Date.now() - EVENT_TTL_SECONDS * 1000) } }).catch((err) => logger.warn('realtime: could not prune old realtime events', { err }));
  }

  return {
    get kind() {
      return kind;
    },
    async start(b) {
      bus = b;
      await events.createIndex({ created_at: 1 }, { name: 'created_at_ttl', expireAfterSeconds: EVENT_TTL_SECONDS }).catch((err) => {
        logger.warn('realtime: could not create the realtime_events TTL index', { err });
      });
      prune();
      pruneTimer = setInterval(prune, PRUNE_EVERY_MS);
      pruneTimer.unref();
      if (!(await supportsChangeStreams(events))) {
        logger.info('realtime: the MongoDB server opens no change streams, polling it instead', { pollMs });
        return startPolling();
      }
      kind = 'mongo-change-stream';
      const requests = c.requests.watch<RequestDoc>([{ $match: { operationType: 'insert' } }]);
      requests.on('change', (ch) => {
        if (ch.operationType === 'insert') deliverRequest(ch.fullDocument);
      });
      requests.on('error', fallBack);
      const shared = events.watch<EventDoc>([{ $match: { operationType: 'insert' } }]);
      shared.on('change', (ch) => {
        if (ch.operationType === 'insert') deliverShared(ch.fullDocument).catch((err) => logger.warn('realtime: event delivery failed', { err }));
      });
      shared.on('error', fallBack);
      streams = [requests, shared];
    },
    share(e) {
      events.insertOne({ origin, token_id: e.tokenId, type: e.type, data: e.data ?? {}, created_at: new Date() }).catch((err) => logger.warn('realtime: could not share an event', { err }));
    },
    async stop() {
      stopped = true;
      bus = null;
      if (timer) clearInterval(timer);
      if (pruneTimer) clearInterval(pruneTimer);
      timer = pruneTimer = null;
      await closeStreams();
      await running;
    },
  };
}
