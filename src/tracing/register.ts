/**
 * The tracing preload: `node --import ./dist/tracing/register.js dist/main.js` (npm start,
 * start:prod and the Dockerfile run it so). With tracing off (docs/operating.md, Tracing) it
 * loads nothing more: no loader hook, no SDK, no exporter. With tracing on it starts the SDK
 * before main.js imports Express, pg or ioredis, so that the instrumentations patch them.
 */
import { loadConfig, loadDotEnv, type TracingConfig } from '../config/app-config.js';
import { ConfigError } from '../config/value-kinds.js';

// The service reads `.env` too (readConfigOrExit); the OTEL_* variables may be set there.
loadDotEnv();
const tracing = tracingConfig();
if (tracing !== undefined) {
  const { startTracing } = await import('./start-tracing.js');
  await startTracing(tracing);
}

function tracingConfig(): TracingConfig | undefined {
  try {
    return loadConfig().tracing;
  } catch (error) {
    // main.js reports the bad value and stops; nothing to trace.
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}
