import type { Metric, Registry } from 'prom-client';

export interface RequestHistogramConfiguration<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Upper bounds, ascending; +Inf is added. */
  buckets: readonly number[];
  registers: Registry[];
}

/** One value as prom-client's Registry formats it: the series' labels are shared by its lines. */
interface ExposedValue<L extends string> {
  labels: Record<string, string | number>;
  sharedLabels: Record<L, string>;
  value: number;
  metricName: string;
  /** prom-client's buckets say null: no exemplars. */
  exemplar?: null;
}

/** What a Registry reads of a metric. */
interface ExposedHistogram<V> {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: V[];
}

/** One combination of label values: its labels and, per bucket, the observations in it. */
interface Series<L extends string> {
  labels: Record<L, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram observed once per request. It keeps each series under its label values
 * joined into one Map key, and its buckets in an array. prom-client's Histogram checks and hashes
 * a label object on every observation, then counts the bucket under its bound turned into text:
 * about 5 µs a request in the running service, for what costs well under one here
 * (docs/performance.md, "What the features cost where they run"). It registers in a
 * prom-client Registry and is exposed exactly as prom-client's Histogram would be
 * (request-histogram.spec.ts holds it to that).
 */
export class RequestHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly labelNames: readonly L[];
  private readonly bounds: readonly number[];
  private readonly series = new Map<string, Series<L>>();

  constructor(config: RequestHistogramConfiguration<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bounds = [...config.buckets].sort((a, b) => a - b);
    for (const registry of config.registers) {
      // The registry reads a metric through name, help, type, aggregator and the two getters
      // below; its type names prom-client's own classes only.
      registry.registerMetric(this as unknown as Metric<L>);
    }
  }

  observe(labels: Record<L, string>, value: number): void {
    let key = '';
    for (const name of this.labelNames) key += `${labels[name]}\u0000`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        labels: { ...labels },
        counts: new Float64Array(this.bounds.length),
        sum: 0,
        count: 0,
      };
      this.series.set(key, series);
    }
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        series.counts[i]++;
        break;
      }
    }
    series.sum += value;
    series.count++;
  }

  /** Forgets every series, as prom-client's reset() does (Registry.resetMetrics()). */
  reset(): void {
    this.series.clear();
  }

  /** What Registry.metrics() formats, as prom-client's Histogram hands it. */
  getForPromString(): Promise<ExposedHistogram<ExposedValue<L>>> {
    const bucketName = `${this.name}_bucket`;
    const values: ExposedValue<L>[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i];
        values.push({
          labels: { le: bound },
          sharedLabels: labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: labels,
          value: count,
          metricName: bucketName,
          exemplar: null,
        },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` },
      );
    }
    const { name, help, type, aggregator } = this;
    return Promise.resolve({ name, help, type, aggregator, values });
  }

  /** The registry's JSON form: each value's labels in one object. */
  async get() {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ sharedLabels, labels, ...value }) => ({
        ...value,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }
}
