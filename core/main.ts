// Composition root: read the configuration, check what a person can get wrong, start the servers,
// say where everything is, shut down cleanly on a signal.
import type { Config } from './config.js';
import { holdYoungGeneration } from './lifecycle/young-generation.js';

// Before the rest of the service is loaded: see young-generation.ts.
const releaseYoungGeneration = holdYoungGeneration();

async function main(): Promise<void> {
  // Imported here rather than above: ESM loads and compiles a static import graph before running
  // any of it, so the whole service would be loaded before the young generation is held.
  const [{ loadConfig }, { StartupError }, { explainStartupError, prepareDataDir, readyFields }, { createLogger, resolveLogFormat }, { startServer }, { ACTION_TYPES }] = await Promise.all([
    import('./config.js'),
    import('./errors.js'),
    import('./lifecycle/startup.js'),
    import('./logger.js'),
    import('./server.js'),
    import('./service-keys.js'),
  ]);
  let config: Config | undefined;
  try {
    config = loadConfig();
    prepareDataDir(config.MONGODB_URI ? ':memory:' : config.dataDir);
    const logger = createLogger(config.LOG_LEVEL, {}, undefined, resolveLogFormat(config.LOG_FORMAT));
    // Signals are handled from here on, before the ready line: a supervisor that stops the service
    // as soon as it reads that line must not meet Node's default (dying without a clean close).
    const graceMs = config.SHUTDOWN_GRACE_MS;
    let running: Awaited<ReturnType<typeof startServer>> | undefined;
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info('shutting down', { signal, grace_ms: graceMs });
      // In-flight requests get the grace period; stopping the modules and the store a little more.
      const force = setTimeout(() => {
        logger.error('shutdown took too long: exiting anyway');
        process.exit(1);
      }, graceMs + 10_000);
      force.unref();
      if (!running) return; // still starting: closed as soon as it has started, below
      try {
        await running.close();
      } catch (err) {
        logger.error('shutdown failed', { err });
        process.exit(1);
      }
      logger.info('stopped');
      process.exit(0);
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));

    running = await startServer(config, { logger });
    if (stopping) {
      // A signal came while starting: close now that there is something to close.
      stopping = false;
      return void stop('signal during start-up');
    }
    logger.info('ready', readyFields(config, running.url));
    // Start-up is over once the plugins imported in the background since listening are in (their
    // failures are the loader's to report).
    const startedUp = running.provided.get(ACTION_TYPES)?.ready() ?? Promise.resolve();
    void startedUp.then(releaseYoungGeneration, releaseYoungGeneration);
  } catch (err) {
    const known = err instanceof StartupError ? err : config ? await explainStartupError(err, config) : null;
    if (!known) throw err;
    process.stderr.write(`cannot start: ${known.message}\n`);
    process.exit(2);
  }
}

main().catch((err) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
