import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Counter,
  Gauge,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type GaugeConfiguration,
} from 'prom-client';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { RequestHistogram, type RequestHistogramConfiguration } from './request-histogram.js';

type Config<T> = Omit<T, 'registers'>;

/**
 * The instance's Prometheus registry and its listener on METRICS_PORT (never the public port,
 * so a balancer cannot expose it). One registry per app, not prom-client's global one: tests
 * run several apps in one process. With METRICS_PORT unset nothing listens and nothing is
 * sampled, but `counter`, `gauge` and `histogram` still hand out working metrics, so callers
 * need no `if`.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  readonly enabled: boolean;
  private server: Server | undefined;
  private readonly logger = new Logger('Metrics');

  constructor(@InjectConfig() private readonly config: AppConfig) {
    this.enabled = config.metrics !== undefined;
    if (this.enabled) {
      // process_* and nodejs_*: CPU, resident memory, heap, event-loop lag, handles, GC.
      collectDefaultMetrics({ register: this.registry });
    }
  }

  /** A counter in this registry; the same name twice returns the first one. */
  counter<L extends string>(config: Config<CounterConfiguration<L>>): Counter<L> {
    return (
      this.existing<Counter<L>>(config.name) ??
      new Counter({ ...config, registers: [this.registry] })
    );
  }

  gauge<L extends string>(config: Config<GaugeConfiguration<L>>): Gauge<L> {
    return (
      this.existing<Gauge<L>>(config.name) ?? new Gauge({ ...config, registers: [this.registry] })
    );
  }

  /** A histogram observed once per request (see RequestHistogram); the same name twice returns the first. */
  histogram<L extends string>(
    config: Config<RequestHistogramConfiguration<L>>,
  ): RequestHistogram<L> {
    return (
      this.existing<RequestHistogram<L>>(config.name) ??
      new RequestHistogram({ ...config, registers: [this.registry] })
    );
  }

  /** Where the listener is (METRICS_PORT=0 picks a free port); undefined while off. */
  address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.metrics) return;
    const { port, host } = this.config.metrics;
    const server = createServer((request, response) => void this.serve(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const address = this.address();
    this.logger.log(`metrics on http://${host ?? 'localhost'}:${address?.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private existing<M>(name: string): M | undefined {
    return this.registry.getSingleMetric(name) as M | undefined;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url?.split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('GET /metrics\n');
      return;
    }
    try {
      const text = await this.registry.metrics();
      response.writeHead(200, { 'Content-Type': this.registry.contentType }).end(text);
    } catch (error) {
      this.logger.error(`collecting metrics failed: ${String(error)}`);
      response.writeHead(500, { 'Content-Type': 'text/plain' }).end('collecting metrics failed\n');
    }
  }
}
