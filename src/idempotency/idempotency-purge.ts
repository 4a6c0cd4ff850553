import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * Deletes expired Idempotency-Key records every IDEMPOTENCY_PURGE_INTERVAL_SECONDS, in every
 * instance: batched, and safe side by side (SKIP LOCKED). The first run comes at a random point
 * of the first interval, so instances started together do not purge together.
 */
@Injectable()
export class IdempotencyPurge implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly idempotency: IdempotencyService,
    @InjectConfig() config: AppConfig,
  ) {
    this.intervalMs = config.idempotency.purgeIntervalSeconds * 1000;
  }

  onApplicationBootstrap(): void {
    this.schedule(Math.random() * this.intervalMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.purge().finally(() => {
        this.running = undefined;
        this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async purge(): Promise<void> {
    try {
      const deleted = await this.idempotency.purgeExpired();
      if (deleted > 0) this.logger.debug(`purged ${deleted} expired Idempotency-Key records`);
    } catch (error) {
      // The database may be down for a while; the next run tries again.
      this.logger.warn(`purging expired Idempotency-Key records failed: ${String(error)}`);
    }
  }
}
