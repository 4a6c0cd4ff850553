import type { ConfigValues } from '../config/config-variables.js';

/**
 * Whether the service traces (docs/operating.md, Tracing): on when `OTEL_TRACES_EXPORTER`
 * names an exporter other than `none`, or, with it unset, when `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set; never with `OTEL_SDK_DISABLED=true`. The preload and the configuration both ask here.
 */
export function tracingRequested(
  v: Pick<
    ConfigValues,
    'OTEL_SDK_DISABLED' | 'OTEL_TRACES_EXPORTER' | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  >,
): boolean {
  if (v.OTEL_SDK_DISABLED) return false;
  const exporters = (v.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (exporters.length > 0) return !exporters.includes('none');
  return v.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
}
