import { context, propagation, ProxyTracerProvider, trace } from '@opentelemetry/api';

/*
 * The few places the service's own code touches tracing. With tracing off the OpenTelemetry
 * API is a no-op: these answer null or nothing, at the cost of a function call.
 */

/** The W3C traceparent of the active span (the request's), or null when nothing is traced. */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The active span's ids, for a log line; undefined when nothing is traced. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const ids = span.spanContext();
  return trace.isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
}

/** Sends the spans still buffered (at shutdown); nothing when tracing is off. */
export async function flushSpans(): Promise<void> {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  const flushable = delegate as { forceFlush?: () => Promise<void> };
  await flushable.forceFlush?.().catch(() => undefined);
}
