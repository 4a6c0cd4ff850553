import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { DISABLED_REASONS, type DisabledReason } from './webhook-subscription.repository.js';

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
  private disabledSubscriptions: Counter<'reason'> | undefined;
  private sentAgain: Counter<'how'> | undefined;
  private connectionsOpened: Counter | undefined;
  private connectionsReused: Counter | undefined;

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
    this.disabledSubscriptions = this.metrics.counter({
      name: 'petstore_webhook_subscriptions_disabled_total',
      help: 'Webhook subscriptions disabled, by reason (requested, gone: the receiver answered 410, failing: no success for WEBHOOK_DISABLE_AFTER_SECONDS)',
      labelNames: ['reason'],
    });
    this.sentAgain = this.metrics.counter({
      name: 'petstore_webhook_deliveries_sent_again_total',
      help: 'Finished webhook deliveries put back to pending, by how (redelivered: one, recovered: every failed one since a time)',
      labelNames: ['how'],
    });
    this.connectionsOpened = this.metrics.counter({
      name: 'petstore_webhook_connections_opened_total',
      help: 'Connections this instance opened to webhook receivers (kept alive and reused while idle less than 4 s)',
    });
    this.connectionsReused = this.metrics.counter({
      name: 'petstore_webhook_connections_reused_total',
      help: 'Webhook attempts this instance sent over a connection already open to the receiver',
    });
    // Each labelled series exists from the start, so a rate over it has a beginning.
    for (const reason of DISABLED_REASONS) this.disabledSubscriptions.inc({ reason }, 0);
    for (const how of ['redelivered', 'recovered']) this.sentAgain.inc({ how }, 0);
    // NaN while the database does not answer: a scrape must not fail as a whole (it would lose
    // every other metric, petstore_database_up included, just when they matter), and 0 would
    // claim an empty backlog.
    const backlog = (): Promise<{ count: number; oldestAgeSeconds: number }> =>
      this.repository
        .pendingBacklog()
        .catch(() => ({ count: Number.NaN, oldestAgeSeconds: Number.NaN }));
    this.metrics.gauge({
      name: 'petstore_webhook_pending_deliveries',
      help: 'Webhook deliveries not yet succeeded or failed (all instances); NaN when the database does not answer',
      async collect() {
        this.set((await backlog()).count);
      },
    });
    this.metrics.gauge({
      name: 'petstore_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest pending webhook delivery, 0 when none (all instances); NaN when the database does not answer',
      async collect() {
        this.set((await backlog()).oldestAgeSeconds);
      },
    });
  }

  disabled(reason: DisabledReason): void {
    this.disabledSubscriptions?.inc({ reason });
  }

  /** `count` finished deliveries put back to pending by redeliver or recover. */
  sentAgainCount(how: 'redelivered' | 'recovered', count: number): void {
    this.sentAgain?.inc({ how }, count);
  }

  connectionOpened(): void {
    this.connectionsOpened?.inc();
  }

  connectionReused(): void {
    this.connectionsReused?.inc();
  }

  attempted(ok: boolean, finished: 'succeeded' | 'failed' | null): void {
    this.attempts?.inc({ outcome: ok ? 'succeeded' : 'failed' });
    if (finished) this.deliveries?.inc({ outcome: finished });
  }
}
