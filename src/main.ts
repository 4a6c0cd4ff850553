import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { APP_OPTIONS, configureApp } from './app.setup.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import {
  ConfigError,
  loadConfig,
  loadDotEnv,
  nestLogLevels,
  type AppConfig,
} from './config/app-config.js';
import { openEmbeddedDatabase } from './database/embedded-database.js';

async function bootstrap(): Promise<void> {
  const config = readConfigOrExit();
  Logger.overrideLogger(nestLogLevels(config.logLevel));
  const logger = new Logger('Bootstrap');

  // DATABASE_URL unset: run our own PostgreSQL (development); Ctrl-C stops it with us.
  const embedded = config.databaseUrl ? null : await openEmbeddedDatabase(config, logger);
  const databaseUrl = config.databaseUrl ?? embedded!.url;

  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ ...config, databaseUrl }),
    { ...APP_OPTIONS, logger: nestLogLevels(config.logLevel) },
  );
  configureApp(app, config);
  app.enableShutdownHooks();
  await app.listen(config.port);

  const address = `http://localhost:${config.port}`;
  logger.log(`listening on ${address}/v1 — Swagger UI at ${address}/docs`);
  if (embedded) {
    const key = await app.get(ApiKeysService).ensureDevelopmentKey(embedded.devKeyFile);
    // Printed on purpose, once, for the developer at the keyboard; logs never carry keys.
    process.stdout.write(
      `\n  Pet store API (embedded PostgreSQL, data in ${config.dataDir})\n` +
        `  Swagger UI:      ${address}/docs\n` +
        `  Development key: ${key}\n` +
        `  Try it:          curl -H "Authorization: Bearer ${key}" ${address}/v1/store/orders\n\n`,
    );
  }
}

function readConfigOrExit(): AppConfig {
  loadDotEnv();
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `start-up failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
