// The realtime module: event bus (provided as BUS), cross-process feed, SSE endpoints (the page's
// and smee.io's), socket.io.
import type { ServiceModule } from '../service-module.js';
import { BUS, WAITERS } from '../service-keys.js';
import { createBus, type RealtimeBus } from './bus.js';
import { createFeed } from './feed.js';
import { attachSocketIo } from './socket.js';
import { sseRouter, type SseOptions, type SseStream } from '../http/realtime/sse.js';
import { smeeRouter } from '../http/realtime/smee.js';
import { createRequestWaiters, type RequestWaiters } from './waiters.js';

export interface RealtimeOptions {
  sse?: SseOptions;
  /** Polling interval (ms) of the cross-process feed where it polls. */
  pollMs?: number;
  /** Attach the socket.io server (default true). */
  socketIo?: boolean;
}

export function createRealtimeModule(opts: RealtimeOptions = {}): ServiceModule {
  return {
    name: 'realtime',
    provides: [BUS, WAITERS],
    async start(ctx) {
      const { config, store, clock, logger, tokens, pipeline } = ctx;
      const log = logger.child({ module: 'realtime' });
      const bus = createBus({ onListenerError: (err) => log.error('realtime listener failed', { err }) });
      const feed = await createFeed(store, log, { pollMs: opts.pollMs });
      bus.setShare((e) => feed.share(e));
      await feed.start(bus);
      ctx.provide(BUS, bus satisfies RealtimeBus);
      const waiters = createRequestWaiters({ store, bus, now: () => clock.now(), onError: (err) => log.error('request wait lookup failed', { err }) });
      ctx.provide(WAITERS, waiters satisfies RequestWaiters);

      // Nobody watching the token (most captures): no event built for nobody.
      pipeline.captured.push((token, record) => {
        if (bus.watches(token.uuid)) bus.publish({ type: 'request.created', tokenId: token.uuid, request: record });
      });
      tokens.updateHooks.push((token) => bus.publish({ type: 'token.updated', tokenId: token.uuid, token }));
      tokens.deleteHooks.push(async (token) => bus.publish({ type: 'token.deleted', tokenId: token.uuid }));

      const streams = new Set<SseStream>();
      const services = { config, store, clock, logger: log, tokens };
      const router = sseRouter(services, bus, streams, opts.sse);
      // smee.io channels count among the SSE streams: the same connections, closed the same way.
      const smee = smeeRouter({ services, bus, streams, opts: opts.sse ?? {} });
      const socket = opts.socketIo === false ? null : attachSocketIo(ctx.httpServer, { config, store, passwords: tokens.passwords, bus, logger: log, now: () => clock.now() });
      ctx.metrics.realtimeSource(() => ({ sse: streams.size, socketio: socket?.io.of('/').sockets.size ?? 0, wait: waiters.count() }));

      const disconnectAll = () => {
        for (const s of [...streams]) s.close();
        socket?.disconnectAll();
        waiters.closeAll();
      };
      return {
        routers: [router, smee],
        closing: disconnectAll,
        async stop() {
          disconnectAll();
          await feed.stop();
        },
      };
    },
  };
}
