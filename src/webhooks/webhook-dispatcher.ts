import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { AppConfig, WebhookConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import {
  WebhookDeliveryRepository,
  type AttemptOutcome,
  type ClaimedDelivery,
} from './webhook-delivery.repository.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { sendDelivery } from './webhook-sender.js';
import { signedHeaders } from './webhook-signature.js';
import { traceAttempt } from './webhook-tracing.js';

/** How often each instance deletes finished deliveries past their retention, and how many at once. */
const PURGE_INTERVAL_MS = 10 * 60_000;
const PURGE_BATCH = 1000;

/**
 * Sends the recorded deliveries. One runs in every instance: each polls for due deliveries
 * (every WEBHOOK_POLL_INTERVAL_MS, 500 ms by default, so a first attempt starts within 2 s) and
 * claims them with FOR UPDATE SKIP LOCKED, so two instances never make the same attempt.
 * Polling alone, no LISTEN: it works through a transaction-pooling PgBouncer. At shutdown it
 * stops claiming and waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS);
 * an attempt cut off by a crash is retried once its claim runs out.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly settings: WebhookConfig;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopping = false;
  /** The last poll filled every free slot: more may be due, so poll again when one frees. */
  private backlog = false;
  private databaseFailing = false;

  private purgeTimer: NodeJS.Timeout | undefined;
  private purging: Promise<void> | undefined;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly metrics: WebhookMetrics,
    @InjectConfig() config: AppConfig,
  ) {
    this.settings = config.webhooks;
  }

  onApplicationBootstrap(): void {
    if (!this.settings.dispatcherEnabled) return;
    this.schedule(this.settings.pollIntervalMs);
    this.purgeTimer = setInterval(() => {
      this.purging ??= this.purge().finally(() => (this.purging = undefined));
    }, PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    clearInterval(this.purgeTimer);
    await this.polling;
    await Promise.allSettled([...this.inFlight, this.purging]);
  }

  /**
   * Deletes finished deliveries older than WEBHOOK_RETENTION_DAYS, a batch at a time (short
   * statements, no long lock), in whichever instances run it: they delete different rows or
   * the same rows once.
   */
  private async purge(): Promise<void> {
    try {
      let purged = 0;
      for (;;) {
        const count = await this.deliveries.purgeFinished(this.settings.retentionMs, PURGE_BATCH);
        purged += count;
        if (count < PURGE_BATCH || this.stopping) break;
      }
      if (purged > 0) this.logger.log(`purged ${purged} finished webhook deliveries`);
    } catch (error) {
      this.logger.warn(`purging old webhook deliveries failed: ${errorMessage(error)}`);
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pollNow(), delayMs);
  }

  private pollNow(): void {
    if (this.stopping || this.polling) return;
    this.polling = this.poll().finally(() => {
      this.polling = undefined;
      this.schedule(this.settings.pollIntervalMs);
    });
  }

  private async poll(): Promise<void> {
    const free = this.settings.concurrency - this.inFlight.size;
    if (free <= 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.deliveries.claimDue(free, this.settings.claimTtlMs);
    } catch (error) {
      // Once per outage, not every half second.
      if (!this.databaseFailing) {
        this.databaseFailing = true;
        this.logger.warn(`cannot claim deliveries: ${errorMessage(error)}; retrying`);
      }
      return;
    }
    if (this.databaseFailing) {
      this.databaseFailing = false;
      this.logger.log('claiming deliveries again');
    }
    this.backlog = claimed.length === free;
    for (const delivery of claimed) {
      const running = this.attempt(delivery).finally(() => {
        this.inFlight.delete(running);
        if (this.backlog) this.pollNow();
      });
      this.inFlight.add(running);
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const result = await traceAttempt(delivery, (traceHeaders) =>
      sendDelivery(
        delivery.url,
        { ...signedHeaders(delivery.secret, delivery.eventId, delivery.payload), ...traceHeaders },
        delivery.payload,
        {
          timeoutMs: this.settings.timeoutMs,
          allowPrivateTargets: this.settings.allowPrivateTargets,
        },
      ),
    );
    const schedule = this.settings.retryScheduleMs;
    const outcome: AttemptOutcome = {
      ...result,
      // Attempt n failed: wait the n-th delay of the schedule; past its end, give up.
      retryInMs: result.ok ? null : (schedule[delivery.attempt - 1] ?? null),
    };
    this.metrics.attempted(
      result.ok,
      result.ok ? 'succeeded' : outcome.retryInMs === null ? 'failed' : null,
    );
    if (!result.ok) {
      // Never the URL (it may carry a token), the secret or the body.
      const next =
        outcome.retryInMs === null
          ? 'the delivery has failed'
          : `retry in ${outcome.retryInMs / 1000} s`;
      this.logger.warn(
        `webhook attempt failed: delivery ${delivery.id} (${delivery.eventType} ${delivery.eventId}) ` +
          `to subscription ${delivery.subscriptionId}, attempt ${delivery.attempt}: ` +
          `${result.error ?? 'failed'} after ${result.durationMs} ms; ${next}`,
      );
    }
    try {
      await this.deliveries.recordAttempt(delivery, outcome);
    } catch (error) {
      // The claim runs out and the delivery is attempted again: at least once.
      this.logger.warn(
        `could not record attempt ${delivery.attempt} of delivery ${delivery.id}: ${errorMessage(error)}`,
      );
    }
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
