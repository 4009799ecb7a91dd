// What operators and orchestrators ask of a running instance: /healthz (liveness: the process
// answers), /readyz (it can serve: every module started, the store answers and takes writes, not
// shutting down) and /metrics (Prometheus text). None needs an API key: a balancer or Prometheus
// calls them; keep /metrics off the public side of the reverse proxy (docs/operating.md, "Metrics").
import Router from '@koa/router';
import { z } from 'zod';
import { mountRoutes, routeFor } from '../route.js';
import type { ServiceMetrics } from '../../metrics/metrics.js';
import type { Store } from '../../store/types.js';
import type { AppState } from '../services.js';

/** Set by the composition root (core/server.ts). */
export interface Readiness {
  /** Every module started (the server listens only then; kept for clarity of the answer). */
  started: boolean;
  /** The modules that started, in order. */
  modules: string[];
  /** True once shutdown began: the balancer should send new work elsewhere. */
  draining: boolean;
}

/** A store that takes longer than this to answer a trivial query is not ready. */
const STORE_PING_MS = 2000;

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref());
}

interface OpsDeps {
  store: Store;
  readiness: Readiness;
  metrics: ServiceMetrics;
}
const route = routeFor<OpsDeps>();
const Health = z.object({ status: z.string(), store: z.string() });

export const opsRoutes = [
  route({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: 200 while the process answers',
    auth: 'public',
    response: { status: 200, schema: Health },
    handler: (_ctx, { store }) => ({ status: 'ok', store: store.kind }),
  }),
  route({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: 200 when every module started and the store answers; 503 with a reason otherwise (also while shutting down, and while writes fail for lack of space)',
    auth: 'public',
    response: { status: 200, schema: Health.extend({ modules: z.array(z.string()) }) },
    handler: async (ctx, { store, readiness }) => {
      const notReady = (reason: string) => {
        ctx.status = 503;
        ctx.body = { status: 'unavailable', reason };
      };
      if (readiness.draining) return notReady('shutting down');
      if (!readiness.started) return notReady('modules are starting');
      try {
        await Promise.race([store.ping(), timeout(STORE_PING_MS)]);
      } catch (err) {
        return notReady(`the ${store.kind} store does not answer: ${err instanceof Error ? err.message : String(err)}`);
      }
      // While writes fail for lack of space, a probe write at most every few seconds (core/store/space.ts).
      const refused = await store.space?.refused();
      if (refused) return notReady(`the ${store.kind} store cannot write: ${refused}`);
      return { status: 'ready', store: store.kind, modules: readiness.modules };
    },
  }),
  route({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text exposition format)',
    auth: 'public',
    response: { status: 200, type: 'text/plain' },
    handler: async (ctx, { metrics }) => {
      const { contentType, body } = await metrics.scrape();
      ctx.type = contentType;
      ctx.body = body;
    },
  }),
];

export function opsRouter(store: Store, readiness: Readiness, metrics: ServiceMetrics): Router<AppState> {
  return mountRoutes(new Router<AppState>(), opsRoutes, { store, readiness, metrics });
}
