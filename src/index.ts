import type { Server } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig, loadDotEnvFile } from './config';
import { createDependencies } from './dependencies';
import { answerParserErrorsAsJson } from './http/parser-errors';
import { createLogger, type Logger } from './observability/logger';
import { ShopFileRejectedError } from './shop/load-shop';
import { MigrationError } from './store/migrations';
import { DataDirInUseError } from './store/pglite';
import { localServiceUrl, removeServiceAddress, writeServiceAddress } from './service-address';

/** How long shutdown waits for in-flight requests before exiting anyway. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    loadDotEnvFile();
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const deps = await createDependencies(config, logger);
  // The shop's tools may never call the service itself.
  deps.networkGuard.setServicePort(config.port);
  const app = createApp(deps.appParts);
  // Where npm run ingest finds this service while it holds the embedded database.
  const dataDir = config.storage.kind === 'pglite' ? config.storage.dataDir : null;
  const server = app.listen(config.port, config.host, () => {
    logger.info({ host: config.host, port: config.port }, `Support agent listening on http://${displayHost(config.host)}:${config.port}`);
    if (dataDir) {
      writeServiceAddress(dataDir, localServiceUrl(config.host, config.port)).catch((error: unknown) =>
        logger.warn({ err: error }, 'Could not write DATA_DIR/service-url: npm run ingest will not find this service'),
      );
    }
  });
  answerParserErrorsAsJson(server);
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'Server failed');
    process.exit(1);
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const closeAll = async () => {
      if (dataDir) await removeServiceAddress(dataDir).catch(() => {});
      await deps.close();
    };
    // Open event streams would hold server.close() forever: end them first (customers reconnect elsewhere).
    deps.endStreams();
    void stop(signal, server, closeAll, logger);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** Stop taking requests, let in-flight ones finish (bounded), then flush the traces and close the database. */
async function stop(signal: string, server: Server, closeDependencies: () => Promise<void>, logger: Logger): Promise<void> {
  logger.info({ signal }, 'Shutting down: no new requests');
  const forced = setTimeout(() => {
    logger.error(`Shutdown took longer than ${SHUTDOWN_TIMEOUT_MS} ms: exiting anyway`);
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS);
  forced.unref();

  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle keep-alive connections would hold close() until they time out, and a
  // stream's connection only becomes idle once its answer is done: keep closing them.
  server.closeIdleConnections();
  const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
  await closed;
  clearInterval(closeIdle);
  logger.info('HTTP server closed');
  // The last traces and scores go to Langfuse first (bounded by LANGFUSE_FLUSH_TIMEOUT_MS).
  await closeDependencies();
  logger.info('Traces flushed, database closed');
  process.exit(0);
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}

main().catch((error) => {
  if (error instanceof ShopFileRejectedError) {
    // One line per problem: the file, the field's path and what was expected.
    console.error(`Failed to start: the shop file has ${error.problems.length} problem(s):\n${error.message}`);
    process.exit(1);
  }
  // Known start-up problems have a message that says what to do; anything else needs its stack.
  const known = error instanceof DataDirInUseError || error instanceof ConfigError || error instanceof MigrationError;
  console.error('Failed to start:', known ? error.message : error);
  process.exit(1);
});
