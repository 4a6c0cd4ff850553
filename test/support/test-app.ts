import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { AppModule, type RuntimeConfig } from '../../src/app.module.js';
import { APP_OPTIONS, configureApp } from '../../src/app.setup.js';
import { ApiKeysService } from '../../src/auth/api-keys.service.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { OpenApiValidator } from './openapi-validator.js';
import { replicaCaughtUp, replicaDatabaseUrl, replicaOfRun } from './replica.js';
import { appDatabaseUrls, createTestDatabase, testRun } from './test-database.js';

/** One running instance of the app. */
export interface AppInstance {
  app: NestExpressApplication;
  /** supertest against the app's HTTP server. */
  http: ReturnType<typeof request>;
  /** The full configuration it runs with (for CLIs run against its database). */
  config: RuntimeConfig;
  close(): Promise<void>;
}

export interface TestApp extends AppInstance {
  databaseUrl: string;
  /** Direct SQL on the app's database, for arranging data and checking what was written. */
  db: pg.Pool;
  /** A valid API key and its Authorization header value. */
  apiKey: string;
  auth: string;
  /** Checks answers against /docs-json (v1) and /openapi/v2.json (v2). */
  spec: OpenApiValidator;
  specV2: OpenApiValidator;
}

/**
 * An instance of the app on an existing database, built as main.ts builds it (same module,
 * same configureApp): what a restart or a second replica sees.
 */
export async function startAppInstance(
  databaseUrl: string,
  overrides: Partial<AppConfig> = {},
): Promise<AppInstance> {
  const defaults = loadConfig({ LOG_LEVEL: 'silent' });
  // With the run's standby (npm run test:replicas), listed reads go to its copy of the database.
  const replica = replicaDatabaseUrl(databaseUrl);
  // Off unless a test turns them on: suites send hundreds of requests a minute from one address.
  const rateLimit = overrides.rateLimit ?? {
    ...defaults.rateLimit,
    perKeyPerMinute: 0,
    unauthenticatedPerMinute: 0,
  };
  const config: RuntimeConfig = {
    ...defaults,
    seedDemo: false,
    // Every key check reaches the database unless a test turns the cache on: tests revoke keys.
    apiKeyCacheTtlMs: 0,
    ...(replica && {
      redisUrl: replicaOfRun()?.redisUrl,
      replicas: { ...defaults.replicas, urls: [replica] },
    }),
    ...overrides,
    // The run's Redis is there for the reads' routing: a limiter that the test did not point at
    // a Redis of its own keeps its counts to this app, as in memory.
    rateLimit:
      replica && overrides.redisUrl === undefined
        ? { ...rateLimit, redisKeyPrefix: `petstore-test:${randomBytes(6).toString('hex')}:` }
        : rateLimit,
    databaseUrl: appDatabaseUrls(databaseUrl).pooled,
    databaseDirectUrl: overrides.databaseDirectUrl ?? appDatabaseUrls(databaseUrl).direct,
  };
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(config)],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    ...APP_OPTIONS,
    logger: false,
  });
  await configureApp(app, config);
  return { app, http: request(app.getHttpServer()), config, close: () => app.close() };
}

/**
 * The instance's origin (`http://127.0.0.1:<port>`), its HTTP server listening on a free loopback
 * port first if it is not yet: for clients that need a real socket (fetch, a browser, streams).
 */
export async function listeningOrigin(instance: AppInstance): Promise<string> {
  const server = instance.app.getHttpServer();
  if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The real app on a fresh database of its own, with a real API key. */
export async function createTestApp(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
  const databaseUrl = await createTestDatabase(
    `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
  );
  const instance = await startAppInstance(databaseUrl, overrides);
  const { key } = await instance.app.get(ApiKeysService).issue('e2e');
  const spec = new OpenApiValidator((await instance.http.get('/docs-json').expect(200)).body);
  const specV2 = new OpenApiValidator(
    (await instance.http.get('/openapi/v2.json').expect(200)).body,
    '/openapi/v2.json',
  );
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  if (replicaOfRun()) {
    // What a test writes with SQL is not its key's last write: the standby must have it before
    // the app reads (the API's own writes are the app's business, read-your-writes). A SELECT
    // writes nothing, and tests send many.
    const query = db.query.bind(db) as (...args: unknown[]) => Promise<unknown>;
    (db as unknown as { query: typeof query }).query = async (...args) => {
      const result = await query(...args);
      const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
      if (!/^\s*SELECT\b/i.test(sql ?? '')) await replicaCaughtUp();
      return result;
    };
  }
  return {
    ...instance,
    databaseUrl,
    db,
    apiKey: key,
    auth: `Bearer ${key}`,
    spec,
    specV2,
    close: async () => {
      await instance.close();
      await db.end();
    },
  };
}
