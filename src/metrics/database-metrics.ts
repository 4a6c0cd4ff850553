import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { MetricsService } from './metrics.service.js';

/**
 * The connection pool, sampled at each scrape, with OpenTelemetry's db.client.connection.*
 * names (connections by state under the older db.client.connections.usage: Prometheus reserves
 * the newer name's `_count` suffix for histograms): connections by state (`used` + `idle` = the pool's total), its maximum, and requests
 * waiting for a connection (above zero for long: the pool or the database is the bottleneck).
 */
@Injectable()
export class DatabaseMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const pool = (): Pool | undefined => (this.dataSource.driver as PostgresDriver).master as Pool;
    this.metrics.gauge({
      name: 'db_client_connections_usage',
      help: 'Connections of the pool by state (OpenTelemetry db.client.connections.usage)',
      labelNames: ['state'],
      collect() {
        const current = pool();
        this.set({ state: 'idle' }, current?.idleCount ?? 0);
        this.set({ state: 'used' }, (current?.totalCount ?? 0) - (current?.idleCount ?? 0));
      },
    });
    this.metrics.gauge({
      name: 'db_client_connection_pending_requests',
      help: 'Requests waiting for a pool connection (OpenTelemetry db.client.connection.pending_requests)',
      collect() {
        this.set(pool()?.waitingCount ?? 0);
      },
    });
    const max = (this.dataSource.options as { poolSize?: number }).poolSize ?? 10;
    this.metrics
      .gauge({
        name: 'db_client_connection_max',
        help: 'Most connections the pool opens (OpenTelemetry db.client.connection.max)',
      })
      .set(max);
  }
}
