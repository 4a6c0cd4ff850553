import { register } from 'node:module';
import { context, trace, TraceFlags, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import type { TracingConfig } from '../config/app-config.js';

/**
 * Starts OpenTelemetry (docs/operating.md, Tracing): the SDK reads the standard OTEL_*
 * variables (exporter, endpoint, protocol, sampler), and the pg and ioredis instrumentations
 * patch those clients as they load. The HTTP server span is the service's own
 * (serverSpanMiddleware: OpenTelemetry's HTTP instrumentation cost every request, sampled or
 * not, more than all the rest of tracing), and so is the handler's (traceHandlers: the Nest
 * instrumentation supports Nest up to 11, and Express's wrapped every middleware).
 */
export async function startTracing({ serviceName }: TracingConfig): Promise<void> {
  // Traces only: the service's metrics are Prometheus (METRICS_PORT), its logs go to stdout.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';

  // ES modules are patched by import-in-the-middle's loader hook, told only about the modules
  // instrumented (not every module the service imports).
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [{ NodeSDK }, pg, ioredis] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
  ]);
  const calls = [
    // Spans only inside a request or a webhook attempt, not for the dispatcher's polling;
    // the statement's text, never its values (enhancedDatabaseReporting stays off). No span
    // for taking a pooled connection: it was 3 of a read's 8 spans, and a wait for one shows
    // as the gap before the statement's span (docs/operating.md, Tracing).
    new pg.PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    // The command's name only: its arguments hold rate-limit keys.
    new ioredis.IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command) => command,
    }),
  ];
  const sdk = new NodeSDK({ serviceName, instrumentations: calls });
  sdk.start();
  // start() gave every instrumentation the SDK's provider; these get it behind the shortcut.
  const provider = childrenOfSampledOnly(trace.getTracerProvider());
  for (const instrumentation of calls) instrumentation.setTracerProvider(provider);
  await waitForAllMessagesAcknowledged();
}

/**
 * A request that is not sampled still runs its SQL and Redis calls through the
 * instrumentations, and the SDK would make each one a span (ids, attributes, the sampler) only
 * to drop it. Every sampler the service accepts drops the child of an unsampled span (the
 * parent-based ones follow the parent; the ratio ones decide by the trace id, the same), so
 * such a call gets its parent's context, not recorded, at no cost.
 */
function childrenOfSampledOnly(provider: TracerProvider): TracerProvider {
  return {
    getTracer(name, version, options) {
      const tracer = provider.getTracer(name, version, options);
      const shortcut = Object.create(tracer) as Tracer;
      shortcut.startSpan = (spanName, spanOptions, active = context.active()) => {
        const parent = trace.getSpan(active)?.spanContext();
        return parent !== undefined && (parent.traceFlags & TraceFlags.SAMPLED) === 0
          ? trace.wrapSpanContext(parent)
          : tracer.startSpan(spanName, spanOptions, active);
      };
      return shortcut;
    },
  };
}
