// Builds the whole service from a configuration: store, services, modules, HTTP server. main.ts
// runs it; integration tests and the benchmark start it on a free port.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCapturePipeline, type CapturePipeline } from './capture/pipeline.js';
import type { Config } from './config.js';
import { createTokenCache } from './capture/token-cache.js';
import { createApp, type RegisteredRoute } from './http/app.js';
import { createHttpPort, type RequestHandler } from './http/port.js';
import type { HttpServices } from './http/services.js';
import { opsRouter, type Readiness } from './http/ops/ops.router.js';
import { createLogger, type Logger } from './logger.js';
import { channelOf, createMetrics, type ServiceMetrics } from './metrics/metrics.js';
import { moduleServices, orderModules, ServiceRegistry, withDefaults, type ServiceLookup } from './composition.js';
import { loadModules } from './modules.js';
import { container as sdkRoot } from '@capture/sdk/container';
import { bridgeProvided, bridgeWithdrawn, registerAbsentServices } from './sdk-bridge.js';
import type { ModuleContext, ServiceModule, StartedModule } from './service-module.js';
import { openStore } from './store/index.js';
import type { Store } from './store/types.js';
import { TokenService } from './tokens/service.js';
import { createSortingKeys, systemClock, type Clock } from './util/time.js';
import { listenOn } from './net/listen.js';
import { readTlsFiles } from './net/tls-files.js';
import { SOCKET_IO_PATH } from './realtime/socket.js';

export interface RunningServer {
  url: string;
  server: http.Server;
  services: HttpServices;
  pipeline: CapturePipeline;
  /** What the modules provided, by typed key (core/service-keys.ts). */
  provided: ServiceLookup;
  metrics: ServiceMetrics;
  /** The API routes the routers serve (method + OpenAPI path), for the document's completeness test. */
  routes: RegisteredRoute[];
  /**
   * Stops accepting connections, lets in-flight requests finish (up to SHUTDOWN_GRACE_MS), then
   * stops the modules and closes the store (which commits what its writer holds).
   */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** The time the server reads (tests set it); waits stay real. */
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
  /** Use this store instead of opening one from the configuration. */
  store?: Store;
  /** Use these modules instead of the configured ones. */
  modules?: ServiceModule[];
}

export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  // TLS_CERT/TLS_KEY are read and checked before anything starts (a StartupError names the setting).
  const tls = config.TLS_CERT && config.TLS_KEY ? readTlsFiles('TLS_CERT', config.TLS_CERT, 'TLS_KEY', config.TLS_KEY) : null;
  const given = opts.clock;
  const clock: Clock = given ? { now: () => given.now(), sleep: systemClock.sleep } : systemClock;
  const store = opts.store ?? (await openStore(config));
  const services: HttpServices = { config, store, clock, logger, tokens: new TokenService(store, config, clock) };
  const pipeline = createCapturePipeline(store, (err) => logger.error('capture hook failed', { err }));
  const metrics = createMetrics();
  pipeline.captured.push((_token, record) => metrics.captureStored(channelOf(record.type)));
  // The SQLite store's capture writer reports its group commits (MongoDB has no such batches).
  store.observeCaptureCommits?.(metrics.storeCommit);
  store.observeCatchUps?.(metrics.storeCatchUp);
  // A full disk: writes answer 507 and /readyz 503 meanwhile; said once each way.
  if (store.space) {
    store.space.onChange = (refused) => (refused ? logger.warn('the store cannot write: writes answer 507 until space is freed', { reason: refused }) : logger.info('the store writes again'));
  }
  const readiness: Readiness = { started: false, modules: [], draining: false };
  const sortingKey = createSortingKeys(clock);

  let handler: RequestHandler = (_req, res) => res.writeHead(503).end();
  const port = createHttpPort(config, tls, (req, res) => handler(req, res));
  const server = port.server;

  // This server's services for plugins (several servers may run in one process, e.g. in tests).
  const container = sdkRoot.createChildContainer();
  // What modules provide reaches plugins through the one bridge table (core/sdk-bridge.ts).
  registerAbsentServices(container);
  const provided = new ServiceRegistry({
    set: (key, value) => bridgeProvided(container, key, value),
    delete: (key) => bridgeWithdrawn(container, key),
  });
  services.provided = provided;
  const base = { config, store, clock, logger, tokens: services.tokens, pipeline, httpServer: server, sortingKey, metrics, container };
  const started: Array<{ name: string; module: StartedModule; declared: ServiceModule }> = [];
  const stopModules = async () => {
    for (const m of started.reverse()) {
      try {
        await m.module.stop?.();
      } catch (err) {
        logger.error('module failed to stop', { module: m.name, err });
      }
      for (const key of m.declared.provides ?? []) provided.delete(key);
    }
  };
  try {
    // Providers before readers; a missing provider or a cycle fails here, before anything starts.
    const modules = orderModules(withDefaults(opts.modules ?? (await loadModules())));
    for (const m of modules) {
      const ctx: ModuleContext = { ...base, ...moduleServices(provided, m) };
      started.push({ name: m.name, module: await m.start(ctx), declared: m });
      logger.debug('module started', { module: m.name });
    }
  } catch (err) {
    await stopModules();
    await store.close();
    throw err;
  }

  const tokenCache = createTokenCache(store, clock);
  services.tokens.updateHooks.push((t) => tokenCache.forget(t));
  services.tokens.deleteHooks.push(async (t) => tokenCache.forget(t));
  const app = createApp(services, {
    capture: { sortingKey, pipeline, tokens: tokenCache, metrics },
    routers: [opsRouter(store, readiness, metrics), ...started.flatMap((m) => m.module.routers ?? [])],
  });
  handler = app.handler;
  // Only socket.io's own path is ever upgraded; any other Upgrade request is a capture or an API call.
  port.routeUpgrades((url) => url.startsWith(`${SOCKET_IO_PATH}/`));
  readiness.modules = started.map((m) => m.name);
  readiness.started = true;
  // Token expiry and inactivity cleanup runs as a recurring job of the scheduler module (core/scheduler).

  await listenOn('PORT', 'tcp', server, (done) => server.listen(config.PORT, config.HOST, done));
  const address = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `${port.secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  for (const m of started) await m.module.listening?.(url);

  return {
    url,
    server,
    services,
    pipeline,
    provided,
    metrics,
    routes: app.routes,
    async close() {
      readiness.draining = true;
      for (const m of started) {
        try {
          await m.module.closing?.();
        } catch (err) {
          logger.error('module failed to prepare shutdown', { module: m.name, err });
        }
      }
      await port.close(config.SHUTDOWN_GRACE_MS);
      await stopModules();
      await store.close();
    },
  };
}
