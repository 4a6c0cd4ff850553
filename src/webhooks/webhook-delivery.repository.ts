import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookSecret } from './webhook-signature.js';

/** A delivery an instance has claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  payload: string;
  /** This attempt's number (1 = first); it is also the claim's token. */
  attempt: number;
  subscriptionId: string;
  url: string;
  secret: WebhookSecret;
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  /** When to try again; null with ok false = the delivery has failed for good. */
  retryInMs: number | null;
}

interface ClaimRow {
  id: string;
  eventId: string;
  eventType: string;
  payload: string;
  attempt: number;
  subscriptionId: string;
  url: string;
  secret: Buffer;
}

/**
 * The dispatcher's SQL. Every method is one statement (its own short transaction), so it works
 * through a transaction-pooling PgBouncer and holds no lock while a receiver is being called.
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
    const rows: ClaimRow[] = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()
           AND (claimed_until IS NULL OR claimed_until <= now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = now(),
             claimed_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.event_id, d.event_type, d.payload, d.attempts, d.subscription_id
       ), interrupted AS (
         UPDATE webhook_attempts a SET outcome = 'interrupted'
         FROM claimed WHERE a.delivery_id = claimed.id AND a.outcome IS NULL
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, started_at)
         SELECT id, attempts, now() FROM claimed
       )
       SELECT c.id, c.event_id AS "eventId", c.event_type AS "eventType", c.payload,
              c.attempts AS attempt, c.subscription_id AS "subscriptionId", s.url, s.secret
       FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id`,
      [limit, claimTtlMs],
    );
    return rows.map(({ secret, ...row }) => ({ ...row, secret: new WebhookSecret(secret) }));
  }

  /**
   * Records an attempt's outcome and what comes next: succeeded, a retry at its time, or
   * failed. Only while this attempt still holds the claim: if its claim ran out and another
   * instance took the delivery over, that instance's attempt decides.
   */
  async recordAttempt(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    const status = outcome.ok ? 'succeeded' : outcome.retryInMs === null ? 'failed' : 'pending';
    await this.dataSource.query(
      `WITH delivery AS (
         UPDATE webhook_deliveries
         SET status = $3::text, claimed_until = NULL, last_response_status = $4,
             next_attempt_at = CASE WHEN $3::text = 'pending'
               THEN now() + make_interval(secs => $5::double precision / 1000) END
         WHERE id = $1 AND attempts = $2 AND status = 'pending'
       )
       UPDATE webhook_attempts
       SET outcome = $6, duration_ms = $7, response_status = $4, error = left($8, 200)
       WHERE delivery_id = $1 AND attempt = $2 AND outcome IS NULL`,
      [
        delivery.id,
        delivery.attempt,
        status,
        outcome.responseStatus,
        outcome.retryInMs ?? 0,
        outcome.ok ? 'succeeded' : 'failed',
        outcome.durationMs,
        outcome.error,
      ],
    );
  }

  /** How many deliveries are pending, and how old the oldest is (for the metrics). */
  async pendingBacklog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const rows: Array<{ count: number; age: number | null }> = await this.dataSource.query(
      `SELECT count(*)::int AS count,
              extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return { count: rows[0]?.count ?? 0, oldestAgeSeconds: Math.max(0, rows[0]?.age ?? 0) };
  }

  /**
   * Deletes up to `batch` finished (succeeded or failed) deliveries created before the
   * retention, with their attempts; returns how many went.
   */
  async purgeFinished(retentionMs: number, batch: number): Promise<number> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH purged AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE status <> 'pending'
             AND created_at < now() - make_interval(secs => $1::double precision / 1000)
           LIMIT $2)
         RETURNING id
       )
       SELECT id FROM purged`,
      [retentionMs, batch],
    );
    return rows.length;
  }
}
