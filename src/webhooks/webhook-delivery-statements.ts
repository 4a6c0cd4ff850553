import type { Statement } from '../database/statement.js';
import type { AttemptOutcome } from './webhook-delivery.repository.js';

/*
 * The dispatcher's statements, built without Nest or TypeORM: WebhookDeliveryRepository runs
 * them, and src/webhooks/webhook-delivery-statements.sql keeps the SQL they make for review
 * (`npm run sql:snapshot`). Each is one statement (its own short transaction), so it works
 * through a transaction-pooling PgBouncer and holds no lock while a receiver is being called.
 */
export const webhookDeliveryStatements = {
  /**
   * Claims up to `limit` due deliveries: locked rows are skipped (another instance has them),
   * and a claim lasts `claimTtlMs`. The attempt is recorded as started, and an earlier attempt
   * that never finished is marked interrupted. Answers each claimed delivery with its
   * subscription's URL and secret, and the traceparent the outbox kept.
   */
  claimDue(limit: number, claimTtlMs: number): Statement {
    return {
      sql: `WITH due AS (
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
         RETURNING d.id, d.event_id, d.event_type, d.payload, d.attempts, d.subscription_id,
                   d.traceparent
       ), interrupted AS (
         UPDATE webhook_attempts a SET outcome = 'interrupted'
         FROM claimed WHERE a.delivery_id = claimed.id AND a.outcome IS NULL
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, started_at)
         SELECT id, attempts, now() FROM claimed
       )
       SELECT c.id, c.event_id AS "eventId", c.event_type AS "eventType", c.payload,
              c.attempts AS attempt, c.subscription_id AS "subscriptionId", s.url, s.secret,
              c.traceparent
       FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id`,
      params: [limit, claimTtlMs],
    };
  },

  /**
   * Records attempt `attempt` of delivery `deliveryId` and what comes next: `status` succeeded,
   * pending (a retry in `retryInMs`) or failed. Only while this attempt still holds the claim:
   * if its claim ran out and another instance took the delivery over, that one's attempt decides.
   */
  recordAttempt(
    deliveryId: string,
    attempt: number,
    status: 'succeeded' | 'pending' | 'failed',
    outcome: AttemptOutcome,
  ): Statement {
    return {
      sql: `WITH delivery AS (
         UPDATE webhook_deliveries
         SET status = $3::text, claimed_until = NULL, last_response_status = $4,
             next_attempt_at = CASE WHEN $3::text = 'pending'
               THEN now() + make_interval(secs => $5::double precision / 1000) END
         WHERE id = $1 AND attempts = $2 AND status = 'pending'
       )
       UPDATE webhook_attempts
       SET outcome = $6, duration_ms = $7, response_status = $4, error = left($8, 200)
       WHERE delivery_id = $1 AND attempt = $2 AND outcome IS NULL`,
      params: [
        deliveryId,
        attempt,
        status,
        outcome.responseStatus,
        outcome.retryInMs ?? 0,
        outcome.ok ? 'succeeded' : 'failed',
        outcome.durationMs,
        outcome.error,
      ],
    };
  },

  /** How many deliveries are pending (`count`), and how old the oldest is (`age`, seconds). */
  pendingBacklog(): Statement {
    return {
      sql: `SELECT count(*)::int AS count,
              extract(epoch FROM now() - min(created_at))::float8 AS age
       FROM webhook_deliveries WHERE status = 'pending'`,
      params: [],
    };
  },

  /**
   * Deletes up to `batch` finished (succeeded or failed) deliveries created more than
   * `retentionMs` ago, with their attempts; answers one row per delivery deleted.
   */
  purgeFinished(retentionMs: number, batch: number): Statement {
    return {
      sql: `WITH purged AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE status <> 'pending'
             AND created_at < now() - make_interval(secs => $1::double precision / 1000)
           LIMIT $2)
         RETURNING id
       )
       SELECT id FROM purged`,
      params: [retentionMs, batch],
    };
  },
};
