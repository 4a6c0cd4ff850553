import type { LoggerService } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../config/app-config.js';
import { DrainState } from './drain-state.js';

/** Keep-alive longer than the balancer's idle timeout: the balancer, not us, closes idle sockets. */
export function applyServerTimeouts(server: Server, config: AppConfig): void {
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  server.headersTimeout = config.http.headersTimeoutMs;
}

/**
 * On SIGTERM: readiness fails at once; requests are still served for the drain delay (the
 * balancer needs a few health checks to notice); then no new connections, in-flight requests
 * finish, idle keep-alive sockets close, the app closes its pool and Redis, exit 0. The whole
 * of it is bounded by SHUTDOWN_TIMEOUT_MS (then exit 1). SIGINT (Ctrl-C) skips the delay.
 */
export function exitGracefullyOnSignals(
  app: NestExpressApplication,
  config: AppConfig,
  logger: LoggerService,
  afterClose: () => Promise<void> = () => Promise.resolve(),
): void {
  let started = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (started) return;
    started = true;
    const deadline = setTimeout(() => {
      logger.error(
        `shutdown took longer than ${config.shutdown.timeoutMs} ms; exiting`,
        undefined,
        'Shutdown',
      );
      process.exit(1);
    }, config.shutdown.timeoutMs);
    deadline.unref();

    app.get(DrainState).begin();
    const delay = signal === 'SIGTERM' ? config.shutdown.drainDelayMs : 0;
    logger.log(`${signal}: not ready any more; serving for ${delay} ms, then closing`, 'Shutdown');
    await sleep(delay);

    const server = app.getHttpServer();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Sockets idle now close at once; busy ones close after their response (Connection:
    // close), and any that turn idle while we wait are swept too.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.closeIdleConnections();
    await closed;
    clearInterval(sweep);

    await app.close();
    await afterClose();
    logger.log('closed; exiting', 'Shutdown');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      shutdown(signal).catch((error: unknown) => {
        logger.error(
          `shutdown failed: ${error instanceof Error ? error.message : String(error)}`,
          undefined,
          'Shutdown',
        );
        process.exit(1);
      });
    });
  }
}
