import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service.js';
import { matchedRoute } from '../common/http/matched-route.js';

/**
 * The status recorded for an answer the client abandoned before it was complete (a hung-up
 * listOrders stream, a balancer's timeout): nginx's "client closed request".
 */
export const ABANDONED_STATUS = 499;

/** OpenTelemetry's http.server.request.duration buckets (seconds). */
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/**
 * Request metrics named after OpenTelemetry's HTTP semantic conventions, as Prometheus
 * spells them (dots become underscores, the unit is a suffix): duration by method, route
 * pattern (never the raw path: ids would explode the series) and status; requests in flight;
 * and rate-limit rejections, which only the limiter answers with 429.
 */
export function httpMetricsMiddleware(
  metrics: MetricsService,
): (request: Request, response: Response, next: NextFunction) => void {
  const duration = metrics.histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests (OpenTelemetry http.server.request.duration); status 499 = abandoned by the client',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
    buckets: DURATION_BUCKETS,
  });
  const active = metrics.gauge({
    name: 'http_server_active_requests',
    help: 'HTTP server requests in flight (OpenTelemetry http.server.active_requests)',
    labelNames: ['http_request_method'],
  });
  const rejected = metrics.counter({
    name: 'petstore_rate_limit_rejections_total',
    help: 'Requests refused with 429 RATE_LIMITED',
  });
  return (request, response, next) => {
    const start = process.hrtime.bigint();
    const method = knownMethod(request.method);
    active.inc({ http_request_method: method });
    response.once('close', () => {
      active.dec({ http_request_method: method });
      const status = response.writableFinished ? response.statusCode : ABANDONED_STATUS;
      if (status === 429) rejected.inc();
      duration.observe(
        {
          http_request_method: method,
          http_route: matchedRoute(request) ?? '',
          http_response_status_code: String(status),
        },
        Number(process.hrtime.bigint() - start) / 1e9,
      );
    });
    next();
  };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** OpenTelemetry's rule: methods outside the known set are `_OTHER`, so clients cannot add series. */
function knownMethod(method: string): string {
  return METHODS.has(method) ? method : '_OTHER';
}
