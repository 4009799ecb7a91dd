// Composition root: read the configuration, start the servers, shut down cleanly on a signal.
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(e.message + '\n');
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const running = await startServer(config, { logger });
  logger.info('listening', { url: running.url, store: running.services.store.kind, baseUrl: config.baseUrl });
  if (!config.ADMIN_API_KEY) logger.warn('ADMIN_API_KEY is not set: users and API keys cannot be created');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await running.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
