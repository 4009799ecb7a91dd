// Optional parts of the service (action runtime, scheduler, realtime, web page, e-mail, DNS) plug
// in here: each declares the typed keys it provides, requires and uses (core/composition.ts), is
// started by core/server.ts after the providers of those keys, may add API routers and capture
// hooks, and is stopped in reverse order on shutdown.
import type http from 'node:http';
import type Router from '@koa/router';
import type { CapturePipeline } from './capture/pipeline.js';
import type { ModuleDeclaration, ModuleServices } from './composition.js';
import type { Config } from './config.js';
import type { AppState } from './http/services.js';
import type { Logger } from './logger.js';
import type { ServiceMetrics } from './metrics/metrics.js';
import type { Store } from './store/types.js';
import type { TokenService } from './tokens/service.js';
import type { Clock } from './util/time.js';

export interface ModuleContext extends ModuleServices {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  tokens: TokenService;
  pipeline: CapturePipeline;
  /** The HTTP server, not yet listening (socket.io attaches here). */
  httpServer: http.Server;
  /** Microsecond capture keys for new request records. */
  sortingKey: () => number;
  /** Where modules report what /metrics shows. */
  metrics: ServiceMetrics;
}

export interface StartedModule {
  routers?: Array<Router<AppState>>;
  /** Called once the HTTP server listens, with its base URL. */
  listening?(url: string): void | Promise<void>;
  /**
   * Called when shutdown begins, before the HTTP server stops accepting: end long-lived connections
   * (SSE, WebSockets), which would otherwise keep the server from closing.
   */
  closing?(): void | Promise<void>;
  stop?(): Promise<void>;
}

export interface ServiceModule extends ModuleDeclaration {
  start(ctx: ModuleContext): Promise<StartedModule>;
}

/** The modules (core/server.ts orders them by their keys). Each entry is one import and one line. */
export async function loadModules(): Promise<ServiceModule[]> {
  const { createErrorLogModule } = await import('./errorlog/module.js');
  const { createMailModule } = await import('./mail/index.js');
  const { createDnsModule } = await import('./dns/index.js');
  const { createSchedulerModule } = await import('./scheduler/module.js');
  const { createActionsModule } = await import('./actions/module.js');
  const { createReplayModule } = await import('./replay/module.js');
  const { createRealtimeModule } = await import('./realtime/module.js');
  const { web } = await import('./web/web.module.js');
  return [createErrorLogModule(), createMailModule(), createSchedulerModule(), createActionsModule(), createReplayModule(), createRealtimeModule(), web, createDnsModule()];
}
