import { DynamicModule, Module } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { pino } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import type { AppConfig } from '../config/app-config.js';
import { matchedRoute } from '../common/http/matched-route.js';

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

type Request = IncomingMessage & AuthenticatedRequest;

/** The route a request matched, or 'unmatched' (a 404). */
function routeOf(request: Request): string {
  return matchedRoute(request) ?? 'unmatched';
}

/**
 * What a finished request adds to its line: the route and who called (a key's display prefix).
 * pino-http also attaches a made-up Error ("failed with status code 5xx") with a stack to 5xx
 * lines; it is dropped: a real unexpected error is logged once, with its stack, by the filter.
 */
function outcome(request: IncomingMessage, value: object): object {
  const typed = request as Request;
  const { err: _synthetic, ...line } = value as { err?: unknown };
  return { ...line, route: routeOf(typed), keyPrefix: typed.apiKey?.prefix };
}

export function createHttpLogger(config: AppConfig): HttpLogger {
  const options = {
    level: config.logLevel,
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
  const logger =
    config.logFormat === 'pretty'
      ? pino({
          ...options,
          transport: {
            target: 'pino-pretty',
            options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l' },
          },
        })
      : // Asynchronous writes to stdout: a request no longer waits for its log line's write()
        // system call; lines written while one is in flight go out together in the next. No
        // minimum length, so a line still leaves at once on a quiet instance. pino flushes
        // what is pending synchronously when the process exits (its own exit handler).
        pino(options, pino.destination({ dest: 1, sync: false }));
  return pinoHttp({
    logger,
    // The id the request-id middleware settled on (the caller's, when sane).
    genReqId: (request) => String(request.headers['x-request-id']),
    serializers: {
      // Method and path only: no headers, so no credentials, cookies or tracking data.
      req: (request: { id: string; method: string; url: string }) => ({
        id: request.id,
        method: request.method,
        url: request.url.split('?')[0],
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    // 503 is an expected operating state (draining, database down) with its own Retry-After:
    // a warning, like a 4xx. Other 5xx are bugs.
    customLogLevel: (_request, response, error) =>
      error || (response.statusCode >= 500 && response.statusCode !== 503)
        ? 'error'
        : response.statusCode >= 400
          ? 'warn'
          : 'info',
    customSuccessMessage: (request, response) =>
      `${request.method} ${routeOf(request as Request)} ${response.statusCode}`,
    customErrorMessage: (request, response) =>
      `${request.method} ${routeOf(request as Request)} ${response.statusCode}`,
    customSuccessObject: (request, _response, value: object) => outcome(request, value),
    customErrorObject: (request, _response, _error, value: object) => outcome(request, value),
  });
}

/**
 * JSON logs through nestjs-pino: Nest's own logging and request logging share one pino
 * instance, and a log made while handling a request carries its request id.
 */
@Module({})
export class LoggingModule {
  static forRoot(httpLogger: HttpLogger): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        // useExisting: the request logger is mounted by configureApp (it must see every
        // request, unknown routes and /docs included); nestjs-pino only binds its logger.
        LoggerModule.forRoot({ pinoHttp: { logger: httpLogger.logger }, useExisting: true }),
      ],
      providers: [{ provide: HTTP_LOGGER, useValue: httpLogger }],
      exports: [HTTP_LOGGER],
    };
  }
}
