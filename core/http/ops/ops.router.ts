// What operators and orchestrators ask of a running instance: /healthz (liveness: the process
// answers), /readyz (it can serve: every module started, the store answers, not shutting down)
// and /metrics (Prometheus text). None needs an API key: a balancer or Prometheus calls them;
// keep /metrics off the public side of the reverse proxy (README, "Operating it").
import Router from '@koa/router';
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

export function opsRouter(store: Store, readiness: Readiness, metrics: ServiceMetrics): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok', store: store.kind };
  });
  router.get('/readyz', async (ctx) => {
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
    ctx.body = { status: 'ready', store: store.kind, modules: readiness.modules };
  });
  router.get('/metrics', async (ctx) => {
    const { contentType, body } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
}
