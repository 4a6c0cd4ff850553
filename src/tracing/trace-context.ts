import {
  context,
  createContextKey,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  trace,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';

/*
 * The few places the service's own code touches tracing. With tracing off the OpenTelemetry
 * API is a no-op: these answer null or nothing, at the cost of a function call.
 */

const UNSAMPLED_REQUEST = createContextKey('petstore-api unsampled request');
const TRACED_REQUEST = createContextKey('petstore-api traced request');

/** The context of a request whose span records: its span, and the request for handler spans. */
export function tracedRequestContext(withSpan: Context, request: IncomingMessage): Context {
  return withSpan.setValue(TRACED_REQUEST, request);
}

/** The request being handled, when its span records (handler-spans.ts); else undefined. */
export function tracedRequest(): IncomingMessage | undefined {
  return context.active().getValue(TRACED_REQUEST) as IncomingMessage | undefined;
}

/**
 * The context a request the sampler dropped runs in: its ids for log lines and the outbox, but
 * no span, so that the pg and ioredis instrumentations (which trace only under a parent span)
 * step aside at the cost of one lookup instead of wrapping every call to record nothing.
 */
export function unsampledRequestContext(ids: SpanContext): Context {
  return ROOT_CONTEXT.setValue(UNSAMPLED_REQUEST, ids);
}

/** The ids of the active span, or of the unsampled request being handled. */
function activeIds(): SpanContext | undefined {
  const active = context.active();
  return (
    trace.getSpanContext(active) ?? (active.getValue(UNSAMPLED_REQUEST) as SpanContext | undefined)
  );
}

/**
 * The W3C traceparent of the active span or unsampled request (the request's), or null when
 * nothing is traced.
 */
export function currentTraceparent(): string | null {
  const ids = activeIds();
  if (ids === undefined) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpanContext(ROOT_CONTEXT, ids), carrier);
  return carrier.traceparent ?? null;
}

/** The active span's ids, for a log line; undefined when nothing is traced. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  const ids = activeIds();
  return ids !== undefined && trace.isSpanContextValid(ids)
    ? { trace_id: ids.traceId, span_id: ids.spanId }
    : undefined;
}

/** Sends the spans still buffered (at shutdown); nothing when tracing is off. */
export async function flushSpans(): Promise<void> {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  const flushable = delegate as { forceFlush?: () => Promise<void> };
  await flushable.forceFlush?.().catch(() => undefined);
}
