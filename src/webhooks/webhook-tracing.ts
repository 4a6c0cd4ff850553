import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type SpanContext,
} from '@opentelemetry/api';
import type { ClaimedDelivery } from './webhook-delivery.repository.js';
import type { AttemptResult } from './webhook-sender.js';

const tracer = trace.getTracer('petstore-api/webhooks');

/**
 * Runs one webhook attempt as a client span (docs/operating.md, Tracing): in the trace of the
 * request that made the change (the traceparent the outbox kept), and linked to it, so a retry
 * an hour later still leads back to the change. `send` gets the headers that carry the attempt's
 * traceparent to the receiver. Attributes: the event, the delivery, the receiver's host and the
 * HTTP outcome; never the URL (it may hold a token), the secret or the body.
 */
export async function traceAttempt(
  delivery: ClaimedDelivery,
  send: (traceHeaders: Record<string, string>) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const change = changeSpanContext(delivery.traceparent);
  const parent = change === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, change);
  return tracer.startActiveSpan(
    `webhook ${delivery.eventType}`,
    {
      kind: SpanKind.CLIENT,
      links: change === undefined ? [] : [{ context: change }],
      attributes: attemptAttributes(delivery),
    },
    parent,
    async (span) => {
      const traceHeaders: Record<string, string> = {};
      propagation.inject(context.active(), traceHeaders);
      try {
        const result = await send(traceHeaders);
        if (result.responseStatus !== null) {
          span.setAttribute('http.response.status_code', result.responseStatus);
        }
        if (!result.ok) {
          span.setAttribute('error.type', result.error ?? 'failed');
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? 'failed' });
        }
        return result;
      } finally {
        span.end();
      }
    },
  );
}

function changeSpanContext(traceparent: string | null): SpanContext | undefined {
  if (traceparent === null) return undefined;
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return spanContext !== undefined && trace.isSpanContextValid(spanContext)
    ? spanContext
    : undefined;
}

function attemptAttributes(delivery: ClaimedDelivery): Attributes {
  const attributes: Attributes = {
    'http.request.method': 'POST',
    'webhook.event.id': delivery.eventId,
    'webhook.event.type': delivery.eventType,
    'webhook.delivery.id': delivery.id,
    'webhook.delivery.attempt': delivery.attempt,
    'webhook.subscription.id': delivery.subscriptionId,
  };
  try {
    const target = new URL(delivery.url);
    attributes['url.scheme'] = target.protocol.slice(0, -1);
    attributes['server.address'] = target.hostname;
    attributes['server.port'] = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  } catch {
    // An unusable URL fails the attempt; the span says so through its status.
  }
  return attributes;
}
