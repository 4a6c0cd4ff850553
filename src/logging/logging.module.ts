import { DynamicModule, Module } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { LoggerModule } from 'nestjs-pino';
import { pino, type Level, type Logger } from 'pino';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { withoutApiKeys } from '../auth/api-key.js';
import type { AppConfig } from '../config/app-config.js';
import type { Rejection } from '../common/http/client-error.js';
import { matchedRoute } from '../common/http/matched-route.js';
import { cutBecause, isTimeout, UNFINISHED_STATUS } from '../common/http/unfinished-response.js';
import { currentTraceIds } from '../tracing/trace-context.js';
import { requestLineWriter } from './request-line.js';

/** The request logger, mounted by configureApp in front of everything (one line per request). */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/** Values no log line may carry, wherever they appear. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.apiKey',
  '*.key',
];

/** The application's logger and the middleware writing one line per request through it. */
export interface HttpLogger {
  /** Nest's own logs and everything else: redacted. */
  logger: Logger;
  middleware: (request: Request, response: Response, next: NextFunction) => void;
  /** One line for an answer the HTTP server wrote before any request reached the app. */
  refused: (rejection: Rejection) => void;
}

export function createHttpLogger(config: AppConfig): HttpLogger {
  const options = { level: config.logLevel };
  const destination =
    config.logFormat === 'pretty'
      ? pino.transport({
          target: 'pino-pretty',
          options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l' },
        })
      : // Asynchronous writes to stdout: a request does not wait for its log line's write()
        // system call; lines written while one is in flight go out together in the next. No
        // minimum length, so a line still leaves at once on a quiet instance. pino flushes
        // what is pending synchronously when the process exits (its own exit handler).
        pino.destination({ dest: 1, sync: false });
  // With tracing on, a line written inside a traced request or webhook attempt names its
  // trace and span (trace_id, span_id); off, no line pays for the lookup.
  const traced = config.tracing !== undefined ? { mixin: () => currentTraceIds() ?? {} } : {};
  const logger = pino(
    { ...options, ...traced, redact: { paths: REDACTED, censor: '[redacted]' } },
    destination,
  );
  // Request lines are built here from fields that cannot hold a credential (method, path
  // without its query and without anything that could be a key, route pattern, status, a key's
  // display prefix), so they skip the
  // redaction pass that costs every other line a walk over its object.
  const requestLogger = pino(options, destination);
  return {
    logger,
    middleware: requestLogMiddleware(requestLogger, config.tracing !== undefined),
    refused: ({ answer, requestId, reason }) => {
      requestLogger.warn(
        {
          req: { id: requestId },
          res: { statusCode: answer.status },
          route: 'unmatched',
          err: reason,
        },
        `refused before a request was read: ${answer.status} ${answer.code} (${reason})`,
      );
    },
  };
}

/**
 * One line per request, when its response closes: the request id the request-id middleware
 * settled on, method, path, status, duration in ms, the route pattern and the calling key's
 * display prefix, at requestLineLevel.
 *
 * An answer whose connection closed before it finished is never logged with the status it
 * would have had: it is status 499 with `res.aborted: true` and `res.bytesSent` (what the
 * service wrote of it, headers included); when the service cut it itself, the line says why
 * (`err`). See docs/operating.md, Logs.
 */
function requestLogMiddleware(
  logger: Logger,
  traced: boolean,
): (request: Request, response: Response, next: NextFunction) => void {
  const writeLine = requestLineWriter(logger);
  return (request, response, next) => {
    const started = Date.now();
    // The request's span, read now: by the time the response closes it may have ended.
    const traceIds = traced ? currentTraceIds() : undefined;
    const socket = request.socket;
    // What the connection carried before this answer (keep-alive: earlier answers).
    const bytesBefore = socket.bytesWritten;
    // on, not once: a response closes once (see http-metrics.ts).
    response.on('close', () => {
      const finished = response.writableFinished;
      const cause = finished ? undefined : cutBecause(response);
      const status = finished ? response.statusCode : UNFINISHED_STATUS;
      const level = requestLineLevel(finished, status, cause);
      if (!logger.isLevelEnabled(level)) return;
      const { method } = request;
      const route = matchedRoute(request) ?? 'unmatched';
      const url = request.originalUrl;
      const query = url.indexOf('?');
      // Read only for an unfinished answer: on a destroyed socket it is what was written.
      const bytesSent = finished ? undefined : (socket.bytesWritten ?? bytesBefore) - bytesBefore;
      writeLine(level, {
        requestId: String(request.headers['x-request-id']),
        method,
        url: withoutApiKeys(query === -1 ? url : url.slice(0, query)),
        statusCode: status,
        bytesSent,
        responseTimeMs: Date.now() - started,
        route,
        keyPrefix: (request as AuthenticatedRequest).apiKey?.prefix,
        err: cause?.message,
        traceIds,
        msg: finished
          ? `${method} ${route} ${status}`
          : cause === undefined
            ? `${method} ${route} ${status} aborted by the client after ${bytesSent} bytes`
            : `${method} ${route} ${status} cut by the service after ${bytesSent} bytes: ${cause.message}`,
      });
    });
    next();
  };
}

/**
 * The level of a request's line. A finished answer: 5xx other than 503 are errors, 503 and 4xx
 * warnings, the rest info. An unfinished one is a warning (the client left, or a time limit
 * such as DB_STREAM_TIMEOUT_MS cut it), or an error when the service cut it for another reason.
 */
export function requestLineLevel(finished: boolean, status: number, cutBy?: Error): Level {
  if (!finished) return cutBy !== undefined && !isTimeout(cutBy) ? 'error' : 'warn';
  return status >= 500 && status !== 503 ? 'error' : status >= 400 ? 'warn' : 'info';
}

/**
 * JSON logs: Nest's own logging through nestjs-pino, on the same destination as the request
 * lines. nestjs-pino's per-request middleware (an Express layer and an AsyncLocalStorage
 * context on every request, for request-bound loggers nothing here uses) is not mounted: a log
 * about a request names its request id in the message (the exception filter does).
 */
@Module({})
export class LoggingModule {
  static forRoot(httpLogger: HttpLogger): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        // useExisting: the request logger is mounted by configureApp (it must see every
        // request, unknown routes and /docs included); no routes: no per-request binding.
        LoggerModule.forRoot({
          pinoHttp: { logger: httpLogger.logger },
          useExisting: true,
          forRoutes: [],
        }),
      ],
      providers: [{ provide: HTTP_LOGGER, useValue: httpLogger }],
      exports: [HTTP_LOGGER],
    };
  }
}
