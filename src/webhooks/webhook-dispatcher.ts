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
import { ReceiverConnections } from './webhook-connections.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { sendDelivery, type AttemptResult } from './webhook-sender.js';
import { signedHeaders } from './webhook-signature.js';
import { traceAttempt } from './webhook-tracing.js';

/** How often each instance deletes finished deliveries past their retention, and how many at once. */
const PURGE_INTERVAL_MS = 10 * 60_000;
const PURGE_BATCH = 1000;

/**
 * Attempts are recorded in batches: the first to end waits this long for others, and those that
 * end while a batch is being written go in the next one, at once.
 */
const RECORD_GATHER_MS = 5;
/** The most attempts one statement records. */
const RECORD_BATCH_MAX = 500;

/**
 * Sends the recorded deliveries. One runs in every instance: each polls for due deliveries
 * (every WEBHOOK_POLL_INTERVAL_MS, 500 ms by default, so a first attempt starts within 2 s) and
 * claims them with FOR UPDATE SKIP LOCKED, so two instances never make the same attempt.
 * Polling alone, no LISTEN: it works through a transaction-pooling PgBouncer. At shutdown it
 * stops claiming, waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS) and
 * records them, then closes its kept-alive connections to receivers; an attempt cut off by a
 * crash is retried once its claim runs out. Claims and records are batched
 * (docs/webhooks.md, How it works).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly settings: WebhookConfig;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly connections: ReceiverConnections;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopping = false;
  /** The last poll filled every free slot: more may be due, so poll again when enough free. */
  private backlog = false;
  /** With a backlog, how many free slots make a claim worth its statement. */
  private readonly claimBatch: number;
  /** Attempts ended, not yet being recorded. */
  private readonly unrecorded: Array<{ delivery: ClaimedDelivery; outcome: AttemptOutcome }> = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private recording: Promise<void> | undefined;
  private databaseFailing = false;

  private purgeTimer: NodeJS.Timeout | undefined;
  private purging: Promise<void> | undefined;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly metrics: WebhookMetrics,
    @InjectConfig() config: AppConfig,
  ) {
    this.settings = config.webhooks;
    this.claimBatch = Math.ceil(this.settings.concurrency / 2);
    this.connections = new ReceiverConnections({
      opened: () => metrics.connectionOpened(),
      reused: () => metrics.connectionReused(),
    });
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
    clearTimeout(this.recordTimer);
    this.writeRecords();
    while (this.recording) await this.recording;
    this.connections.close();
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

  private freeSlots(): number {
    return this.settings.concurrency - this.inFlight.size;
  }

  private pollNow(): void {
    if (this.stopping || this.polling) return;
    this.polling = this.poll().finally(() => {
      this.polling = undefined;
      // Attempts that ended during the claim freed slots: claim again now rather than wait.
      if (this.backlog && this.freeSlots() >= this.claimBatch) this.pollNow();
      else this.schedule(this.settings.pollIntervalMs);
    });
  }

  private async poll(): Promise<void> {
    const free = this.freeSlots();
    if (free <= 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.deliveries.claimDue(free, this.settings.claimTtlMs);
    } catch (error) {
      this.backlog = false;
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
        if (this.backlog && this.freeSlots() >= this.claimBatch) this.pollNow();
      });
      this.inFlight.add(running);
    }
  }

  private retryIn(delivery: ClaimedDelivery, result: AttemptResult): number | null {
    if (result.ok) return null;
    return retryDelay(this.settings.retryScheduleMs, delivery.roundAttempt, result.retryAfterMs);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const secrets = delivery.previousSecret
      ? [delivery.secret, delivery.previousSecret]
      : [delivery.secret];
    const result = await traceAttempt(delivery, (traceHeaders) =>
      sendDelivery(
        delivery.url,
        { ...signedHeaders(secrets, delivery.eventId, delivery.payload), ...traceHeaders },
        delivery.payload,
        {
          timeoutMs: this.settings.timeoutMs,
          allowPrivateTargets: this.settings.allowPrivateTargets,
          connections: this.connections,
        },
      ),
    );
    const outcome: AttemptOutcome = { ...result, retryInMs: this.retryIn(delivery, result) };
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
    this.record(delivery, outcome);
  }

  /** Queues an ended attempt to be recorded with others that end about then. */
  private record(delivery: ClaimedDelivery, outcome: AttemptOutcome): void {
    this.unrecorded.push({ delivery, outcome });
    if (this.recording) return;
    if (this.unrecorded.length >= RECORD_BATCH_MAX) {
      clearTimeout(this.recordTimer);
      this.recordTimer = undefined;
      this.writeRecords();
      return;
    }
    this.recordTimer ??= setTimeout(() => {
      this.recordTimer = undefined;
      this.writeRecords();
    }, RECORD_GATHER_MS);
  }

  private writeRecords(): void {
    if (this.recording || this.unrecorded.length === 0) return;
    const batch = this.unrecorded.splice(0, RECORD_BATCH_MAX);
    this.recording = this.recordBatch(batch).finally(() => {
      this.recording = undefined;
      this.writeRecords();
    });
  }

  private async recordBatch(
    batch: Array<{ delivery: ClaimedDelivery; outcome: AttemptOutcome }>,
  ): Promise<void> {
    try {
      const disabled = await this.deliveries.recordAttempts(
        batch,
        this.settings.disableAfterSeconds,
      );
      for (const { subscriptionId, disabledReason } of disabled) {
        this.metrics.disabled(disabledReason);
        this.logger.warn(
          `webhook subscription ${subscriptionId} disabled: ${disabledReason} ` +
            (disabledReason === 'gone'
              ? '(the receiver answered 410 Gone)'
              : `(no attempt has succeeded for ${this.settings.disableAfterSeconds} s)`),
        );
      }
    } catch (error) {
      // Their claims run out and the deliveries are attempted again: at least once.
      const attempts = batch.map(({ delivery }) => `${delivery.id}#${delivery.attempt}`);
      this.logger.warn(
        `could not record webhook attempts (delivery#attempt ${attempts.join(', ')}): ${errorMessage(error)}`,
      );
    }
  }
}

/**
 * When to try a failed attempt again: attempt n since the delivery was (last) sent failed, so
 * wait the n-th delay of the schedule, or longer when the receiver's Retry-After asks (at most
 * an hour); past the schedule's end, never (null).
 */
export function retryDelay(
  schedule: readonly number[],
  roundAttempt: number,
  retryAfterMs: number | null,
): number | null {
  const delay = schedule[roundAttempt - 1];
  if (delay === undefined) return null;
  return Math.max(delay, retryAfterMs ?? 0);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
