import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { routeTemplate } from './route-template.js';
import { tracedRequestContext, unsampledRequestContext } from './trace-context.js';
import { withoutApiKeys } from '../auth/api-key.js';

/**
 * The request's server span (docs/operating.md, Tracing), in place of OpenTelemetry's HTTP
 * instrumentation: that one computed a dozen attributes for the sampler and wrapped the
 * response and the request's event listeners on every request, sampled or not, and was the
 * largest share of what tracing cost (docs/performance.md, Tracing). Here the caller's
 * `traceparent`/`tracestate` are extracted, the sampler decides on the span's name alone, and
 * only a recorded span gets attributes and becomes the active span. A request the sampler
 * dropped runs with its ids alone (unsampledRequestContext): its log lines and outbox rows
 * still name the trace, and its SQL and Redis calls are not wrapped at all.
 *
 * Mounted first, with tracing on only. Probes and the metrics listener are not traced: they
 * would be most of the traces and mean nothing.
 */
export function serverSpanMiddleware(): (
  request: Request,
  response: Response,
  next: NextFunction,
) => void {
  // After the preload started the SDK: the SDK's tracer itself, not a proxy to it.
  const tracer = trace.getTracer('petstore-api');
  return (request, response, next) => {
    const url = request.url;
    if (isProbe(url)) {
      next();
      return;
    }
    const method = request.method;
    const caller = propagation.extract(ROOT_CONTEXT, request.headers);
    // Named by its method until the route is known; renamed when the response closes.
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, caller);
    if (span.isRecording()) {
      span.setAttributes(requestAttributes(request, url));
      response.once('close', () => endServerSpan(span, request, response));
      context.with(tracedRequestContext(trace.setSpan(caller, span), request), next);
    } else {
      // Nothing to record or to end: the request carries only its ids (trace-context.ts).
      context.with(unsampledRequestContext(span.spanContext()), next);
    }
  };
}

function isProbe(url: string): boolean {
  return url.startsWith('/health/') || url === '/metrics' || url.startsWith('/metrics?');
}

function endServerSpan(span: Span, request: Request, response: Response): void {
  const route = routeTemplate(request);
  if (route !== undefined) {
    span.setAttribute('http.route', route);
    span.updateName(`${request.method} ${route}`);
  }
  if (response.writableFinished) {
    const status = response.statusCode;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  } else {
    // The connection closed before the answer was complete (the client left, or a time limit
    // cut it): no status was delivered.
    span.setAttribute('error.type', 'response.incomplete');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * The stable HTTP server attributes. url.path and url.query lose anything that could be an API
 * key (one never belongs there, but a caller may put it there); no header but Host and
 * User-Agent is read.
 */
function requestAttributes(request: Request, url: string): Attributes {
  const query = url.indexOf('?');
  const attributes: Attributes = {
    'http.request.method': request.method,
    'url.scheme': request.protocol,
    'url.path': withoutApiKeys(query === -1 ? url : url.slice(0, query)),
    'network.protocol.version': request.httpVersion,
    'client.address': request.ip,
    'network.peer.address': request.socket.remoteAddress,
    'network.peer.port': request.socket.remotePort,
    'user_agent.original': request.headers['user-agent'],
  };
  if (query !== -1) attributes['url.query'] = withoutApiKeys(url.slice(query + 1));
  const host = request.headers.host;
  if (host !== undefined) {
    // `name:port` or `[v6]:port`.
    const colon = host.lastIndexOf(':');
    const hasPort = colon > host.lastIndexOf(']');
    attributes['server.address'] = hasPort ? host.slice(0, colon) : host;
    if (hasPort) attributes['server.port'] = Number(host.slice(colon + 1));
  }
  return attributes;
}
