import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runStatement } from '../database/statement.js';
import { webhookDeliveryStatements as statements } from './webhook-delivery-statements.js';
import { WebhookSecret } from './webhook-signature.js';
import type { DisabledReason } from './webhook-subscription.repository.js';

/** A delivery an instance has claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  payload: string;
  /** This attempt's number (1 = first); it is also the claim's token. */
  attempt: number;
  /** Its number since the delivery was last sent again (1 = first): the retry schedule's. */
  roundAttempt: number;
  subscriptionId: string;
  url: string;
  secret: WebhookSecret;
  /** The traceparent of the request that made the change; null when it was not traced. */
  traceparent: string | null;
  /** The secret before the last rotation, while it still signs. */
  previousSecret: WebhookSecret | null;
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  /** When to try again; null with ok false = the delivery has failed for good. */
  retryInMs: number | null;
}

/** A claimed delivery as the statement answers it: the secrets still in bytes. */
type ClaimRow = Omit<ClaimedDelivery, 'secret' | 'previousSecret'> & {
  secret: Buffer;
  previousSecret: Buffer | null;
};

/**
 * The dispatcher's SQL: runs the statements of src/webhooks/webhook-delivery-statements.ts.
 * Every method is one statement (its own short transaction), so it works through a
 * transaction-pooling PgBouncer and holds no lock while a receiver is being called.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims up to `limit` due deliveries: locked rows are skipped (another instance has them),
   * and a claim lasts `claimTtlMs` — an instance that dies mid-attempt leaves a claim that runs
   * out, and the delivery is attempted again. The attempt is recorded as started, and an
   * earlier attempt that never finished is marked interrupted.
   */
  async claimDue(limit: number, claimTtlMs: number): Promise<ClaimedDelivery[]> {
    const rows = await runStatement<ClaimRow>(
      this.dataSource,
      statements.claimDue(limit, claimTtlMs),
    );
    return rows.map(({ secret, previousSecret, ...row }) => ({
      ...row,
      secret: new WebhookSecret(secret),
      previousSecret: previousSecret && new WebhookSecret(previousSecret),
    }));
  }

  /**
   * Records attempts' outcomes, in one statement, and what comes next for each delivery:
   * succeeded, a retry at its time, or failed. Each only while its attempt still holds the
   * claim: if its claim ran out and another instance took the delivery over, that instance's
   * attempt decides. Failures may disable subscriptions (a 410, or failing for
   * `disableAfterSeconds`): those are answered, with the reason.
   */
  async recordAttempts(
    attempts: ReadonlyArray<{ delivery: ClaimedDelivery; outcome: AttemptOutcome }>,
    disableAfterSeconds: number,
  ): Promise<Array<{ subscriptionId: string; disabledReason: DisabledReason }>> {
    return runStatement<{ subscriptionId: string; disabledReason: DisabledReason }>(
      this.dataSource,
      statements.recordAttempts(
        attempts.map(({ delivery, outcome }) => ({
          deliveryId: delivery.id,
          attempt: delivery.attempt,
          status: outcome.ok ? 'succeeded' : outcome.retryInMs === null ? 'failed' : 'pending',
          outcome,
        })),
        disableAfterSeconds,
      ),
    );
  }

  /** How many deliveries are pending, and how old the oldest is (for the metrics). */
  async pendingBacklog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const rows = await runStatement<{ count: number; age: number | null }>(
      this.dataSource,
      statements.pendingBacklog(),
    );
    return { count: rows[0]?.count ?? 0, oldestAgeSeconds: Math.max(0, rows[0]?.age ?? 0) };
  }

  /**
   * Deletes up to `batch` finished (succeeded or failed) deliveries created before the
   * retention, with their attempts; returns how many went.
   */
  async purgeFinished(retentionMs: number, batch: number): Promise<number> {
    const rows = await runStatement(this.dataSource, statements.purgeFinished(retentionMs, batch));
    return rows.length;
  }
}
