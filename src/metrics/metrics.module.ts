import { Global, Module } from '@nestjs/common';
import { DatabaseMetrics } from './database-metrics.js';
import { MetricsService } from './metrics.service.js';

/**
 * Prometheus metrics on METRICS_PORT. Global: any feature registers its own metrics through
 * MetricsService's `counter`, `gauge` and `histogram` (docs/operating.md lists them all).
 */
@Global()
@Module({
  providers: [MetricsService, DatabaseMetrics],
  exports: [MetricsService],
})
export class MetricsModule {}
