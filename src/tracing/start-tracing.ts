import type { IncomingMessage } from 'node:http';
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { routeTemplate } from './route-template.js';
import { withoutApiKeys } from '../auth/api-key.js';
import type { TracingConfig } from '../config/app-config.js';

/**
 * Starts OpenTelemetry (docs/operating.md, Tracing): the SDK reads the standard OTEL_*
 * variables (exporter, endpoint, protocol, sampler), and the instrumentations below patch
 * node:http, pg and ioredis as they load. NestJS itself is not instrumented: the
 * OpenTelemetry Nest instrumentation supports Nest up to 11; the HTTP span is named by the
 * controller's route template here instead, and the handler's span is HandlerSpanInterceptor's
 * (Express's instrumentation is not used either: it wrapped every middleware, traced or not).
 */
export async function startTracing({ serviceName }: TracingConfig): Promise<void> {
  // Traces only: the service's metrics are Prometheus (METRICS_PORT), its logs go to stdout.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';

  // ES modules are patched by import-in-the-middle's loader hook, told only about the modules
  // instrumented (not every module the service imports).
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [{ NodeSDK }, http, pg, ioredis] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
  ]);
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [
      new http.HttpInstrumentation({
        // Probes and the metrics listener would be most of the traces and mean nothing.
        ignoreIncomingRequestHook: (request) => isProbe(request.url ?? ''),
        // A key could be in the path or the query (it never belongs there, but a caller may
        // put it there): never into a span.
        startIncomingSpanHook: (request) => withoutKeys(request.url ?? ''),
        applyCustomAttributesOnSpan: (span, request) => {
          if (!('route' in request)) return;
          const route = routeTemplate(request as IncomingMessage);
          if (route === undefined) return;
          span.setAttribute('http.route', route);
          span.updateName(`${request.method ?? 'GET'} ${route}`);
        },
        // The service's one outgoing HTTP call is a webhook attempt, which makes its own client
        // span and sends its traceparent (src/webhooks/webhook-tracing.ts).
        disableOutgoingRequestInstrumentation: true,
      }),
      // Spans only inside a request or a webhook attempt, not for the dispatcher's polling;
      // the statement's text, never its values (enhancedDatabaseReporting stays off). No span
      // for taking a pooled connection: it was 3 of a read's 8 spans, and the statement's span
      // already holds the wait (docs/operating.md, Tracing).
      new pg.PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // The command's name only: its arguments hold rate-limit keys.
      new ioredis.IORedisInstrumentation({
        requireParentSpan: true,
        dbStatementSerializer: (command) => command,
      }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
}

function isProbe(url: string): boolean {
  return url.startsWith('/health/') || url === '/metrics' || url.startsWith('/metrics?');
}

/** url.path and url.query without anything that could be an API key. */
function withoutKeys(url: string): Record<string, string> {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return query === -1
    ? { 'url.path': withoutApiKeys(path) }
    : { 'url.path': withoutApiKeys(path), 'url.query': withoutApiKeys(url.slice(query + 1)) };
}
