// First: V8's settings hold for everything the imports below allocate.
import './lifecycle/v8-flags.js';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { APP_OPTIONS, configureApp } from './app.setup.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import { readConfigOrExit } from './config/read-config.js';
import { openDatabase } from './database/embedded-database.js';
import { exitGracefullyOnSignals, prepareServer } from './lifecycle/graceful-shutdown.js';
import { flushSpans } from './tracing/trace-context.js';

async function bootstrap(): Promise<void> {
  const config = readConfigOrExit();
  const logger = new Logger('Bootstrap');

  // DATABASE_URL unset: run our own PostgreSQL (development); Ctrl-C stops it with us.
  const database = await openDatabase(config);
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      AppModule.forRoot({ ...config, databaseUrl: database.url }),
      APP_OPTIONS,
    );
    await configureApp(app, config);
    const connections = prepareServer(app.getHttpServer());
    exitGracefullyOnSignals(
      app,
      connections,
      config,
      logger,
      // Spans still buffered go out before the process ends (nothing when tracing is off).
      async () => {
        await Promise.all([flushSpans(), database.embedded?.stop()]);
      },
    );
    await app.init();
    // The server's own listen, not app.listen: Nest would log a taken port as an error with
    // its stack before the one line below says it.
    await new Promise<void>((resolve, reject) => {
      const server = app.getHttpServer();
      server.once('error', reject);
      server.listen(config.port, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // A failed start must not leave the embedded PostgreSQL it started behind.
    await database.embedded?.stop();
    throw error;
  }

  const address = `http://localhost:${config.port}`;
  logger.log(`listening on ${address}/v1 — Swagger UI at ${address}/docs`);
  if (config.tracing) {
    const { endpoint, protocol, sampler, samplerRatio } = config.tracing;
    const ratio = sampler.endsWith('traceidratio') ? ` ${samplerRatio}` : '';
    // The origin only: an endpoint's path or credentials are nobody's business in a log.
    logger.log(`tracing to ${new URL(endpoint).origin} (${protocol}), sampler ${sampler}${ratio}`);
  }
  if (database.embedded) {
    const key = await app.get(ApiKeysService).ensureDevelopmentKey(database.embedded.devKeyFile);
    // Printed on purpose, once, for the developer at the keyboard; logs never carry keys.
    process.stdout.write(
      `\n  Pet store API (embedded PostgreSQL on port ${database.embedded.port}, data in ${config.dataDir})\n` +
        `  Swagger UI:      ${address}/docs\n` +
        `  Reference:       ${address}/reference\n` +
        `  Development key: ${key}\n` +
        `  Try it:          curl -H "Authorization: Bearer ${key}" ${address}/v1/store/orders\n\n`,
    );
  }
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${startUpFailure(error)}\n`);
  process.exit(1);
});

/** One line a person can act on. */
function startUpFailure(error: unknown): string {
  const { code, port } = (error ?? {}) as { code?: unknown; port?: unknown };
  if (code === 'EADDRINUSE') {
    return `port ${String(port)} is already in use by another program; stop it, or choose another port with PORT (PORT=3001 npm start)`;
  }
  return error instanceof Error ? error.message : String(error);
}
