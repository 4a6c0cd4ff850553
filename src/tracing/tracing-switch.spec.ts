import { readConfigVariables } from '../config/config-variables.js';
import { asTemplate } from './route-template.js';
import { tracingRequested } from './tracing-switch.js';

const on = (env: Record<string, string>) => tracingRequested(readConfigVariables(env));

describe('tracingRequested', () => {
  it('is off with no OTEL_* variable', () => {
    expect(on({})).toBe(false);
  });

  it('is on with an endpoint, or with the otlp exporter alone', () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(on({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(on({ OTEL_TRACES_EXPORTER: 'console,otlp' })).toBe(true);
  });

  it('is off with the exporter none or the SDK disabled, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(on({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(on({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(on({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it('treats a blank variable as unset', () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_TRACES_EXPORTER: '' })).toBe(false);
  });
});

describe('asTemplate', () => {
  it("writes Express's parameters as OpenAPI does", () => {
    expect(asTemplate('/v2/store/orders/:orderId')).toBe('/v2/store/orders/{orderId}');
    expect(asTemplate('/v1/store/orders/:orderId/ship')).toBe('/v1/store/orders/{orderId}/ship');
    expect(asTemplate('/v1/categories')).toBe('/v1/categories');
  });
});
