import {
  Controller,
  Get,
  Logger,
  ServiceUnavailableException,
  VERSION_NEUTRAL,
} from '@nestjs/common';
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
  private readonly logger = new Logger('Health');

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly drain: DrainState,
    metrics: MetricsService,
  ) {
    // "Is this instance healthy?": the readiness probe itself, run at each scrape.
    const ready = (): Promise<number> =>
      this.ready().then(
        () => 1,
        () => 0,
      );
    metrics.gauge({
      name: 'petstore_ready',
      help: '1 when GET /health/ready would answer 200 (not draining, database answering within 1 s), else 0',
      async collect() {
        this.set(await ready());
      },
    });
  }

  /** The process is up and serving HTTP. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** The instance should get traffic: it is not shutting down and its database answers quickly. */
  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    return this.health
      .check([
        () => {
          const indicator = this.indicators.check('instance');
          return this.drain.draining ? indicator.down({ draining: true }) : indicator.up();
        },
        () => this.database.pingCheck('database', { timeout: 1000 }),
      ])
      .catch((error: unknown) => {
        throw error instanceof ServiceUnavailableException ? this.notReady(error) : error;
      });
  }

  /** Terminus's 503 as the Error body, naming what is down (`instance` means draining). */
  private notReady(error: ServiceUnavailableException): ServiceUnavailableError {
    const result = error.getResponse() as Partial<HealthCheckResult>;
    const down = Object.keys(result.error ?? {});
    if (down.some((check) => check !== 'instance')) {
      this.logger.warn(`not ready: ${JSON.stringify(result.error)}`);
    }
    return new ServiceUnavailableError(`Not ready: ${down.join(', ') || 'a check failed'}.`);
  }
}
