import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';

/**
 * Webhook metrics: attempts and finished deliveries by outcome (counted by the instance that
 * made them: sum over instances), and, read from the database at each scrape (the same on
 * every instance), the pending deliveries and the age of the oldest. An oldest age that keeps
 * growing means receivers are failing or the dispatchers cannot keep up.
 */
@Injectable()
export class WebhookMetrics implements OnModuleInit {
  private attempts: Counter<'outcome'> | undefined;
  private deliveries: Counter<'outcome'> | undefined;

  constructor(
    private readonly metrics: MetricsService,
    private readonly repository: WebhookDeliveryRepository,
  ) {}

  onModuleInit(): void {
    this.attempts = this.metrics.counter({
      name: 'petstore_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this instance, by outcome (succeeded, failed)',
      labelNames: ['outcome'],
    });
    this.deliveries = this.metrics.counter({
      name: 'petstore_webhook_deliveries_total',
      help: 'Webhook deliveries this instance finished, by outcome (succeeded, failed: retries used up)',
      labelNames: ['outcome'],
    });
    const repository = this.repository;
    this.metrics.gauge({
      name: 'petstore_webhook_pending_deliveries',
      help: 'Webhook deliveries not yet succeeded or failed (all instances)',
      async collect() {
        this.set((await repository.pendingBacklog()).count);
      },
    });
    this.metrics.gauge({
      name: 'petstore_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest pending webhook delivery, 0 when none (all instances)',
      async collect() {
        this.set((await repository.pendingBacklog()).oldestAgeSeconds);
      },
    });
  }

  attempted(ok: boolean, finished: 'succeeded' | 'failed' | null): void {
    this.attempts?.inc({ outcome: ok ? 'succeeded' : 'failed' });
    if (finished) this.deliveries?.inc({ outcome: finished });
  }
}
