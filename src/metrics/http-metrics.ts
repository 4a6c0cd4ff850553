import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service.js';
import { matchedRoute } from '../common/http/matched-route.js';
import { statusSent } from '../common/http/unfinished-response.js';

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
    help: 'Duration of HTTP server requests (OpenTelemetry http.server.request.duration); status 499 = the answer did not finish (the connection closed first)',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
    buckets: DURATION_BUCKETS,
  });
  // Counted in a plain object and read at each scrape: two label lookups fewer per request.
  const inFlight: Record<string, number> = {};
  metrics.gauge({
    name: 'http_server_active_requests',
    help: 'HTTP server requests in flight (OpenTelemetry http.server.active_requests)',
    labelNames: ['http_request_method'],
    collect() {
      for (const method in inFlight) this.set({ http_request_method: method }, inFlight[method]);
    },
  });
  const rejected = metrics.counter({
    name: 'petstore_rate_limit_rejections_total',
    help: 'Requests refused with 429 RATE_LIMITED',
  });
  return (request, response, next) => {
    // A double of ms, monotonic: no BigInt to allocate twice per request, as hrtime.bigint().
    const start = performance.now();
    const method = knownMethod(request.method);
    inFlight[method] = (inFlight[method] ?? 0) + 1;
    // on, not once: a response closes once, and once's wrapper and removal cost every request.
    response.on('close', () => {
      inFlight[method]--;
      const status = statusSent(response);
      if (status === 429) rejected.inc();
      duration.observe(
        {
          http_request_method: method,
          http_route: matchedRoute(request) ?? '',
          http_response_status_code: String(status),
        },
        (performance.now() - start) / 1e3,
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

/**
 * Answers Node's HTTP server wrote itself, before a request reached the app (so the request
 * metrics above never see them): bytes that are not HTTP (400), headers too large (431) or too
 * slow (408), chunk extensions too large (413). Returns what counts one, by its status.
 */
export function httpRejectionCounter(metrics: MetricsService): (status: number) => void {
  const rejections = metrics.counter({
    name: 'petstore_http_refusals_total',
    help: 'Answers the HTTP server wrote before a request reached the app (400 not HTTP, 408 headers too slow, 413, 431), by status',
    labelNames: ['http_response_status_code'],
  });
  return (status) => rejections.inc({ http_response_status_code: String(status) });
}
