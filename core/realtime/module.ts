// The realtime module: event bus (shared as `bus`), cross-process feed, SSE endpoint, socket.io.
import type { ServiceModule } from '../modules.js';
import { createBus, type RealtimeBus } from './bus.js';
import { createFeed } from './feed.js';
import { attachSocketIo } from './socket.js';
import { sseRouter, type SseOptions, type SseStream } from '../http/realtime/sse.js';
import { createRequestWaiters, type RequestWaiters } from './waiters.js';

export interface RealtimeOptions {
  sse?: SseOptions;
  /** Polling interval (ms) of the cross-process feed where it polls. */
  pollMs?: number;
  /** Attach the socket.io server (default true). */
  socketIo?: boolean;
}

/** The key under which the bus is put in ModuleContext.shared. */
export const BUS_KEY = 'bus';
/** The key under which the callers waiting for a request (waiters.ts) are shared. */
export const WAITERS_KEY = 'waiters';

export function createRealtimeModule(opts: RealtimeOptions = {}): ServiceModule {
  return {
    name: 'realtime',
    async start(ctx) {
      const { config, store, clock, logger, tokens, pipeline } = ctx;
      const log = logger.child({ module: 'realtime' });
      const bus = createBus({ onListenerError: (err) => log.error('realtime listener failed', { err }) });
      const feed = await createFeed(store, log, { pollMs: opts.pollMs });
      bus.setShare((e) => feed.share(e));
      await feed.start(bus);
      ctx.shared.set(BUS_KEY, bus satisfies RealtimeBus);
      const waiters = createRequestWaiters({ store, bus, now: () => clock.now(), onError: (err) => log.error('request wait lookup failed', { err }) });
      ctx.shared.set(WAITERS_KEY, waiters satisfies RequestWaiters);

      pipeline.captured.push((token, record) => bus.publish({ type: 'request.created', tokenId: token.uuid, request: record }));
      tokens.updateHooks.push((token) => bus.publish({ type: 'token.updated', tokenId: token.uuid, token }));
      tokens.deleteHooks.push(async (token) => bus.publish({ type: 'token.deleted', tokenId: token.uuid }));

      const streams = new Set<SseStream>();
      const router = sseRouter({ config, store, clock, logger: log, tokens }, bus, streams, opts.sse);
      const socket = opts.socketIo === false ? null : attachSocketIo(ctx.httpServer, { config, store, bus, logger: log, now: () => clock.now() });
      ctx.metrics.realtimeSource(() => ({ sse: streams.size, socketio: socket?.io.of('/').sockets.size ?? 0, wait: waiters.count() }));

      const disconnectAll = () => {
        for (const s of [...streams]) s.close();
        socket?.disconnectAll();
        waiters.closeAll();
      };
      return {
        routers: [router],
        closing: disconnectAll,
        async stop() {
          disconnectAll();
          await feed.stop();
          ctx.shared.delete(BUS_KEY);
          ctx.shared.delete(WAITERS_KEY);
        },
      };
    },
  };
}
