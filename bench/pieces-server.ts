/**
 * The built service (PIECES_SERVICE_DIST, a dist/ folder) booted as dist/main.js boots it
 * (AppModule, configureApp, the graceful shutdown's connection tracking), with one of its
 * pieces taken away (PIECE_REMOVED, one of PIECES, or `none`): what that piece costs a
 * request is the difference. The pieces are removed here, in the bench, by leaving a middleware
 * out, replacing a guard's or a class's method, or dropping a global interceptor or pipe: the
 * production code has no switch for any of them. Used by pieces.ts; the rest of the
 * environment is the service's own (DATABASE_URL, PORT, LOG_LEVEL, METRICS_PORT…).
 */
import 'reflect-metadata';
import { ApplicationConfig, NestApplication, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { PIECES, type Piece } from './service-pieces.js';

type Middleware = (...args: unknown[]) => void;
interface Authenticator {
  identify(request: unknown): unknown;
}
interface Prototype {
  prototype: Record<string, unknown>;
}

async function main(): Promise<void> {
  const dist = process.env.PIECES_SERVICE_DIST;
  if (!dist) throw new Error('PIECES_SERVICE_DIST is required');
  const removed = new Set(
    (process.env.PIECE_REMOVED ?? 'none')
      .split(',')
      .map((piece) => piece.trim())
      .filter((piece) => piece !== 'none'),
  );
  for (const piece of removed) {
    if (!(PIECES as readonly string[]).includes(piece)) {
      throw new Error(`PIECE_REMOVED: "${piece}" is none of ${PIECES.join(', ')}`);
    }
  }
  const gone = (piece: Piece): boolean => removed.has(piece);
  const load = async <T>(file: string): Promise<T> =>
    (await import(pathToFileURL(join(dist, file)).href)) as T;
  // What main.js imports first (a build from before it had none: BENCH_BEFORE_DIST).
  if (existsSync(join(dist, 'lifecycle', 'v8-flags.js'))) await load('lifecycle/v8-flags.js');

  const { AppModule } = await load<{ AppModule: { forRoot(config: unknown): object } }>(
    'app.module.js',
  );
  const { APP_OPTIONS, configureApp } = await load<{
    APP_OPTIONS: object;
    configureApp: (app: NestExpressApplication, config: unknown) => Promise<unknown>;
  }>('app.setup.js');
  const { readConfigOrExit } = await load<{
    readConfigOrExit: () => { port: number; databaseUrl?: string };
  }>('config/read-config.js');
  const { HTTP_LOGGER } = await load<{ HTTP_LOGGER: symbol }>('logging/logging.module.js');
  const { securityHeaders } = await load<{ securityHeaders: Middleware }>(
    'common/http/security-headers.js',
  );
  const { requestIdMiddleware } = await load<{ requestIdMiddleware: Middleware }>(
    'common/http/request-id.middleware.js',
  );
  const { RateLimiter } = await load<{ RateLimiter: Prototype }>('rate-limit/rate-limiter.js');
  const { ApiKeyGuard } = await load<{ ApiKeyGuard: Prototype }>('auth/api-key.guard.js');
  const { ReadRouter } = await load<{ ReadRouter: Prototype & (new (...args: never[]) => object) }>(
    'database/read-router.js',
  );
  const { prepareServer } = await load<{ prepareServer: (server: Server) => unknown }>(
    'lifecycle/graceful-shutdown.js',
  );

  if (gone('rate limiter')) {
    // The count alone: who the caller is is still asked, as the guard needs it.
    RateLimiter.prototype.admit = function (
      this: { authenticator: Authenticator },
      request: unknown,
    ) {
      return this.authenticator.identify(request);
    };
  }
  if (gone('interceptors and pipes')) {
    // The global ones (APP_INTERCEPTOR, app.useGlobalPipes): Nest adds each through
    // ApplicationConfig.
    ApplicationConfig.prototype.addGlobalInterceptor = () => undefined;
    ApplicationConfig.prototype.useGlobalPipes = () => undefined;
  }
  const primaryPool = (router: object): pg.Pool =>
    (router as unknown as { primaryPool(): pg.Pool }).primaryPool();

  // Metrics off is the service's own setting: no listener, nothing counted or sampled.
  if (gone('metrics')) delete process.env.METRICS_PORT;
  const config = readConfigOrExit();
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ ...config, databaseUrl: config.databaseUrl }),
    APP_OPTIONS,
  );
  if (gone('answer deadline')) {
    // The pool's client class is the deadline's subclass: without its query, pg.Client's.
    const client = (
      primaryPool(app.get(ReadRouter)) as unknown as { options: { Client: Prototype } }
    ).options.Client;
    delete client.prototype.query;
  }
  const skipped = new Set<unknown>();
  if (gone('security headers')) skipped.add(securityHeaders);
  if (gone('request id')) skipped.add(requestIdMiddleware);
  if (gone('request log')) skipped.add(app.get<{ middleware: unknown }>(HTTP_LOGGER).middleware);
  // On the class: NestFactory answers a Proxy whose set trap stores nothing, so an assignment
  // to app.use would be silently lost.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own instance below
  const nestUse = NestApplication.prototype.use;
  NestApplication.prototype.use = function (
    this: NestApplication,
    ...args: Parameters<typeof nestUse>
  ) {
    return args.some((arg) => skipped.has(arg)) ? this : nestUse.apply(this, args);
  };
  // The builds since the middlewares share one layer add them to a MiddlewareChain instead.
  const chainFile = join(dist, 'common', 'http', 'middleware-chain.js');
  if (existsSync(chainFile)) {
    const { MiddlewareChain } = await load<{
      MiddlewareChain: { prototype: { use(middleware: unknown): unknown } };
    }>('common/http/middleware-chain.js');
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own instance below
    const chainUse = MiddlewareChain.prototype.use;
    MiddlewareChain.prototype.use = function (this: unknown, middleware: unknown) {
      return skipped.has(middleware) ? this : chainUse.call(this, middleware);
    };
  }
  await configureApp(app, config);
  if (gone('API key guard')) {
    // The whole guard, the rate limiter's count with it (the guard runs it). Every request is
    // the bench's key, as the guard would have found it (listOrders reads it).
    const { rows } = await primaryPool(app.get(ReadRouter)).query<{
      id: number;
      prefix: string;
      hash: string;
    }>('SELECT id, prefix, key_hash AS hash FROM api_keys ORDER BY id LIMIT 1');
    const principal = {
      keyId: rows[0].id,
      prefix: rows[0].prefix,
      fingerprint: rows[0].hash.slice(0, 16),
    };
    ApiKeyGuard.prototype.canActivate = (context: {
      switchToHttp(): { getRequest(): { apiKey?: unknown } };
    }): boolean => {
      context.switchToHttp().getRequest().apiKey = principal;
      return true;
    };
  }

  if (!gone('connection tracking')) prepareServer(app.getHttpServer());
  await new Promise<void>((resolve) => app.getHttpServer().listen(config.port, resolve));
  process.stderr.write(
    `service without ${removed.size === 0 ? 'nothing' : [...removed].join(', ')} on ${config.port}\n`,
  );
  const shutdown = (): void => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
