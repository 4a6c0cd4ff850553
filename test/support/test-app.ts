import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { AppModule, type RuntimeConfig } from '../../src/app.module.js';
import { APP_OPTIONS, configureApp } from '../../src/app.setup.js';
import { ApiKeysService } from '../../src/auth/api-keys.service.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { OpenApiValidator } from './openapi-validator.js';
import { createTestDatabase, testRun } from './test-database.js';

export interface TestApp {
  app: NestExpressApplication;
  /** supertest against the app's HTTP server. */
  http: ReturnType<typeof request>;
  /** The app's database and its full configuration (for CLIs run against it). */
  databaseUrl: string;
  config: RuntimeConfig;
  /** Direct SQL on the app's database, for arranging data and checking what was written. */
  db: pg.Pool;
  /** A valid API key and its Authorization header value. */
  apiKey: string;
  auth: string;
  spec: OpenApiValidator;
  close(): Promise<void>;
}

/**
 * The real app, built like main.ts builds it (same module, same configureApp), on a fresh
 * database of its own, with a real API key.
 */
export async function createTestApp(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
  const databaseUrl = await createTestDatabase(
    `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
  );

  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent' }),
    seedDemo: false,
    ...overrides,
    databaseUrl,
  };
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(config)],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    ...APP_OPTIONS,
    logger: false,
  });
  configureApp(app, config);
  await app.init();

  const http = request(app.getHttpServer());
  const { key } = await app.get(ApiKeysService).issue('e2e');
  const spec = new OpenApiValidator((await http.get('/docs-json').expect(200)).body);
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    app,
    databaseUrl,
    config,
    http,
    db,
    apiKey: key,
    auth: `Bearer ${key}`,
    spec,
    close: async () => {
      await app.close();
      await db.end();
    },
  };
}
