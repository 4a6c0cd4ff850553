import { Controller, Get, ServiceUnavailableException, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { Public } from '../auth/public.decorator.js';
import { ServiceUnavailableError } from '../common/errors/domain-error.js';
import { DrainState } from '../lifecycle/drain-state.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** Probes for load balancers and orchestrators: outside every version, no API key, not rate limited. */
@Public()
@ApiExcludeController()
@Controller({ path: 'health', version: VERSION_NEUTRAL })
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly drain: DrainState,
    metrics: MetricsService,
  ) {
    const drainState = this.drain;
    metrics.gauge({
      name: 'petstore_ready',
      help: '1 when GET /health/ready would answer 200 (the instance is not draining), else 0',
      collect() {
        this.set(drainState.draining ? 0 : 1);
      },
    });
    // The database's health, for alerts: all instances share it, so it is not readiness.
    const databaseAnswers = async (): Promise<number> => {
      // Terminus reports a failed ping as a `down` result (older versions threw).
      const result = await Promise.resolve(
        this.database.pingCheck('database', { timeout: 1000 }),
      ).catch(() => undefined);
      return result?.database?.status === 'up' ? 1 : 0;
    };
    metrics.gauge({
      name: 'petstore_database_up',
      help: '1 when the database answered this instance within 1 s at this scrape, else 0',
      async collect() {
        this.set(await databaseAnswers());
      },
    });
  }

  /** The process is up and serving HTTP. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * The instance should get traffic: it is not shutting down. A dependency that every instance
   * shares (the database, Redis) is deliberately not part of it: when it fails, it fails for
   * all instances at once, and a balancer following readiness would take every one out
   * together, turning quick 503s with Retry-After into refused connections
   * (docs/operating.md, "Readiness").
   */
  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    return this.health
      .check([
        () => {
          const indicator = this.indicators.check('instance');
          return this.drain.draining ? indicator.down({ draining: true }) : indicator.up();
        },
      ])
      .catch((error: unknown) => {
        throw error instanceof ServiceUnavailableException ? this.notReady(error) : error;
      });
  }

  /** Terminus's 503 as the Error body, naming what is down (`instance` means draining). */
  private notReady(error: ServiceUnavailableException): ServiceUnavailableError {
    const result = error.getResponse() as Partial<HealthCheckResult>;
    const down = Object.keys(result.error ?? {});
    return new ServiceUnavailableError(`Not ready: ${down.join(', ') || 'a check failed'}.`);
  }
}
