// An instance's Prometheus metrics (METRICS_PORT), read by the loopback harnesses, and the
// forced collections of the test-only GC hook (soak-gc-hook.mjs) before a memory reading.
import { setTimeout as sleep } from 'node:timers/promises';
import { getText } from './harness.mjs';

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
  return JSON.parse((await getText(`http://127.0.0.1:${instance.gcPort}/gc`, 10000)).text);
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
  const { text } = await getText(`http://127.0.0.1:${instance.metricsPort}/metrics`, 5000);
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

export const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)];
};

const FLOOR_MS = 15000;

/**
 * A reading of an idle instance, taken the same way before and after what is measured (the
 * soak: after warm-up and after the load): for FLOOR_MS, again and again a forced collection,
 * a second for the memory to go back to the system and a scrape of its metrics; then the median of the last three, so that one slow
 * collection or scrape is no outlier. Forced collections alone leave V8's heap as large as the
 * load made it (Node 20's gc() does not shrink it); V8's memory reducer does, some seconds after
 * the allocation rate drops, so the readings go on until it has had its turn.
 */
export async function settle(instance) {
  const samples = [];
  const until = Date.now() + FLOOR_MS;
  while (Date.now() < until || samples.length < 3) {
    await collect(instance);
    await sleep(1000);
    samples.push(await scrape(instance));
  }
  const last = samples.slice(-3);
  return {
    rss: median(last.map((s) => s.rss)),
    handles: median(last.map((s) => s.handles)),
    heap: median(last.map((s) => s.heap)),
    heapTotal: median(last.map((s) => s.heapTotal)),
    external: median(last.map((s) => s.external)),
  };
}
