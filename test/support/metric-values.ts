import { MetricsService } from '../../src/metrics/metrics.service.js';
import type { AppInstance } from './test-app.js';

/**
 * The sum of a metric's values over the series whose labels include `labels` (all of them by
 * default), read from the instance's registry.
 */
export async function metricTotal(
  instance: AppInstance,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = await instance.app.get(MetricsService).registry.getSingleMetric(name)?.get();
  return (metric?.values ?? [])
    .filter((value) =>
      Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted),
    )
    .reduce((sum, value) => sum + value.value, 0);
}

/** Rate-limit counts and checks Redis did not answer on `instance`: requests let through unlimited. */
export function uncheckedByRateLimiter(instance: AppInstance): Promise<number> {
  return metricTotal(instance, 'petstore_rate_limit_unchecked_total');
}
