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

async function bootstrap(): Promise<void> {
  const config = readConfigOrExit();
  const logger = new Logger('Bootstrap');

  // DATABASE_URL unset: run our own PostgreSQL (development); Ctrl-C stops it with us.
  const database = await openDatabase(config, logger);
  const app = await NestFactory.create<NestExpressApplication>(
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
    () => database.embedded?.stop() ?? Promise.resolve(),
  );
  await app.listen(config.port);

  const address = `http://localhost:${config.port}`;
  logger.log(`listening on ${address}/v1 — Swagger UI at ${address}/docs`);
  if (database.embedded) {
    const key = await app.get(ApiKeysService).ensureDevelopmentKey(database.embedded.devKeyFile);
    // Printed on purpose, once, for the developer at the keyboard; logs never carry keys.
    process.stdout.write(
      `\n  Pet store API (embedded PostgreSQL on port ${database.embedded.port}, data in ${config.dataDir})\n` +
        `  Swagger UI:      ${address}/docs\n` +
        `  Development key: ${key}\n` +
        `  Try it:          curl -H "Authorization: Bearer ${key}" ${address}/v1/store/orders\n\n`,
    );
  }
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `start-up failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
