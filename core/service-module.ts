// The contract every service module implements: the context it starts with and what it returns.
// Kept apart from the module list (core/modules.ts), which imports every module: a module file
// imports this one, so the list and the modules do not import each other.
import type http from 'node:http';
import type Router from '@koa/router';
import type { CapturePipeline } from './capture/pipeline.js';
import type { ModuleDeclaration, ModuleServices } from './composition.js';
import type { Config } from './config.js';
import type { DependencyContainer } from '@capture/sdk';
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
  /**
   * This server's tsyringe container (a child of the SDK's root): modules register here, under the
   * SDK's tokens, the services plugins may use; every plugin's container is a child of it.
   */
  container: DependencyContainer;
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
  /** Modules providing what this one requires, started with it when the list has no provider (see withDefaults). */
  defaults?(): readonly ServiceModule[];
}
