import { VersioningType, type NestApplicationOptions } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { authenticateUndecodablePaths } from './auth/undecodable-path.middleware.js';
import { API_VERSION_PREFIXES, type ApiVersion } from './common/api-version.js';
import { sendRouteNotFound } from './common/errors/all-exceptions.filter.js';
import { corsOptions } from './common/http/cors.js';
import { MiddlewareChain } from './common/http/middleware-chain.js';
import { refuseUnmetHttpRequirements } from './common/http/http-semantics.middleware.js';
import { configureHttpServer } from './common/http/http-server.js';
import { ReadRouter } from './database/read-router.js';
import { readYourWritesMiddleware } from './database/read-your-writes.middleware.js';
import { sendJsonExactly } from './common/http/exact-int64.js';
import { requestIdMiddleware } from './common/http/request-id.middleware.js';
import { securityHeaders } from './common/http/security-headers.js';
import { createValidationPipe } from './common/http/validation.pipe.js';
import { setupOpenApi } from './common/openapi/openapi-documents.js';
import { OpenApiRoutes } from './common/openapi/openapi.module.js';
import type { AppConfig } from './config/app-config.js';
import { AppLogger } from './logging/app-logger.js';
import { HTTP_LOGGER, type HttpLogger } from './logging/logging.module.js';
import { httpMetricsMiddleware, httpRejectionCounter } from './metrics/http-metrics.js';
import { MetricsService } from './metrics/metrics.service.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { traceHandlers } from './tracing/handler-spans.js';
import { serverSpanMiddleware } from './tracing/server-span.middleware.js';

/**
 * Options for NestFactory.create. No global body parser: JSON bodies are read by
 * JsonBodyInterceptor (installed by @Idempotent or @JsonBody), after authentication, on the
 * routes that take one.
 */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

/**
 * Everything main.ts and the e2e tests do to the app alike, so the tests test what ships:
 * configure, initialise (the API's routes, then the documentation's), then catch what no route
 * serves.
 */
export async function configureApp(
  app: NestExpressApplication,
  config: AppConfig,
): Promise<Record<ApiVersion, OpenAPIObject>> {
  app.useLogger(new AppLogger(app.get(Logger)));
  app.disable('x-powered-by');
  // Ids beyond 2^53 (pets stored by operators) are answered digit for digit.
  sendJsonExactly(app.getHttpAdapter().getInstance());
  // A JSON API whose clients do not revalidate: hashing every body for an ETag is waste.
  app.set('etag', false);
  if (config.trustProxy !== undefined) {
    app.set('trust proxy', config.trustProxy);
  }
  const metrics = app.get(MetricsService);
  const httpLogger = app.get<HttpLogger>(HTTP_LOGGER);
  // Timeouts, and the Error body on what Node's HTTP server would answer bare (headers too
  // large, not HTTP, too slow); what it answers before a request exists is logged and counted.
  const countRejection = metrics.enabled ? httpRejectionCounter(metrics) : undefined;
  configureHttpServer(app.getHttpServer(), config.http, (rejection) => {
    httpLogger.refused(rejection);
    countRejection?.(rejection.answer.status);
  });
  // One Express layer for every middleware a request passes (see MiddlewareChain), in order.
  const middlewares = new MiddlewareChain();
  // First, so that everything after runs in the request's span (its log line names the trace).
  if (config.tracing) middlewares.use(serverSpanMiddleware());
  // Then, so every answer is measured, the ones refused by later middleware too.
  if (metrics.enabled) middlewares.use(httpMetricsMiddleware(metrics));
  middlewares.use(requestIdMiddleware);
  middlewares.use(httpLogger.middleware);
  middlewares.use(securityHeaders);
  // No Host, an unmet Expect: refused before anything else, with the Error body.
  middlewares.use(refuseUnmetHttpRequirements);
  const limiter = app.get(RateLimiter);
  middlewares.use(
    authenticateUndecodablePaths(API_VERSION_PREFIXES, (request, response) =>
      limiter.admit(request, response),
    ),
  );
  const readRouter = app.get(ReadRouter);
  // Reads then know their caller, and writes are recorded before their answers.
  if (readRouter.enabled) middlewares.use(readYourWritesMiddleware(readRouter));
  app.use(middlewares.handler());
  if (config.corsOrigins.length > 0) {
    app.enableCors(corsOptions(config.corsOrigins));
  }
  // A version is a path prefix chosen per controller; controllers that name none are v1, and
  // the health probes (VERSION_NEUTRAL) stay outside every version.
  app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });
  app.useGlobalPipes(createValidationPipe());
  let documents: Record<ApiVersion, OpenAPIObject> | undefined;
  app.get(OpenApiRoutes).registerAfterApiRoutes(() => {
    documents = setupOpenApi(app, config);
  });
  // With tracing off, the handlers stay as they are: nothing per request.
  if (config.tracing) traceHandlers(app);
  await app.init();
  if (documents === undefined) throw new Error('app.init() did not register the OpenAPI documents');
  // After every route: whatever Nest's own not-found handler leaves gets the Error body too.
  app.use(sendRouteNotFound);
  return documents;
}
