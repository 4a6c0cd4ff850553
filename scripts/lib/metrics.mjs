// An instance's Prometheus metrics (METRICS_PORT), read by the loopback harnesses, and the
// forced collections of the test-only GC hook (soak-gc-hook.mjs) before a memory reading.

/** Node arguments that load the GC hook into an instance (with SOAK_GC_PORT in its env). */
export const GC_HOOK_ARGS = [
  '--expose-gc',
  '--import',
  new URL('./soak-gc-hook.mjs', import.meta.url).href,
];

/** The environment of an instance read so: its metrics listener and the hook, on loopback. */
export function measuredEnv(instance) {
  return {
    METRICS_PORT: String(instance.metricsPort),
    METRICS_HOST: '127.0.0.1',
    SOAK_GC_PORT: String(instance.gcPort),
  };
}

/** Full collections in the instance (at instance.gcPort); its memory figures. */
export async function collect(instance) {
  const response = await fetch(`http://127.0.0.1:${instance.gcPort}/gc`, {
    signal: AbortSignal.timeout(10000),
  });
  return response.json();
}

/** The value of the sample `name` with (at least) `labels` in Prometheus' text format, or NaN. */
export function sample(text, name, labels = {}) {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(/,(?=[a-zA-Z_]+=")/);
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return Number.NaN;
}

/** The figures the harnesses read from `instance.metricsPort`'s /metrics. */
export async function scrape(instance) {
  const response = await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`, {
    signal: AbortSignal.timeout(5000),
  });
  const text = await response.text();
  return {
    rss: sample(text, 'process_resident_memory_bytes'),
    handles: sample(text, 'nodejs_active_handles_total'),
    heap: sample(text, 'nodejs_heap_size_used_bytes'),
    heapTotal: sample(text, 'nodejs_heap_size_total_bytes'),
    external: sample(text, 'nodejs_external_memory_bytes'),
    used: sample(text, 'db_client_connections_usage', { state: 'used' }),
    idle: sample(text, 'db_client_connections_usage', { state: 'idle' }),
    pending: sample(text, 'db_client_connection_pending_requests'),
    ready: sample(text, 'petstore_ready'),
  };
}

export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
