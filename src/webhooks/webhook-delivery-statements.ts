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
   * Claims up to `limit` due deliveries of enabled subscriptions: locked rows are skipped
   * (another instance has them), and a claim lasts `claimTtlMs`. Due deliveries of disabled
   * subscriptions are failed. The attempt is recorded as
   * started, and an earlier attempt that never finished is marked interrupted. Answers each
   * claimed delivery with its subscription's URL, secret, and previous secret while it lives,
   * the attempt's number since the delivery was last sent again (`roundAttempt`), and the
   * traceparent the outbox kept.
   */
  claimDue(limit: number, claimTtlMs: number): Statement {
    return {
      sql: `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= now()
           AND (d.claimed_until IS NULL OR d.claimed_until <= now())
           AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.enabled)
         ORDER BY d.next_attempt_at
         LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       ), stranded AS (
         -- Recorded by a change that read its subscription just before it was disabled, after
         -- the disabling failed the pending ones: failed as well, never sent.
         UPDATE webhook_deliveries d
         SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
         FROM webhook_subscriptions s
         WHERE s.id = d.subscription_id AND NOT s.enabled
           AND d.status = 'pending' AND d.next_attempt_at <= now()
       ), claimed AS (
         UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1, last_attempt_at = now(),
             claimed_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.event_id, d.event_type, d.payload, d.attempts, d.earlier_attempts,
                   d.subscription_id, d.traceparent
       ), interrupted AS (
         UPDATE webhook_attempts a SET outcome = 'interrupted'
         FROM claimed WHERE a.delivery_id = claimed.id AND a.outcome IS NULL
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, started_at)
         SELECT id, attempts, now() FROM claimed
       )
       SELECT c.id, c.event_id AS "eventId", c.event_type AS "eventType", c.payload,
              c.attempts AS attempt, c.attempts - c.earlier_attempts AS "roundAttempt",
              c.subscription_id AS "subscriptionId", s.url, s.secret,
              CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END
                AS "previousSecret", c.traceparent
       FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id`,
      params: [limit, claimTtlMs],
    };
  },

  /**
   * Records attempt `attempt` of delivery `deliveryId` and what comes next: `status` succeeded,
   * pending (a retry in `retryInMs`) or failed. Only while this attempt still holds the claim:
   * if its claim ran out and another instance took the delivery over, that one's attempt
   * decides. Its subscription's failing clock starts at a failure and stops at a success; a
   * failure disables the subscription (`gone` on a 410; `failing` once the clock has run
   * `disableAfterSeconds`, 0 never), and fails its other pending deliveries. Answers the
   * reason when it disabled it.
   */
  recordAttempt(
    deliveryId: string,
    attempt: number,
    status: 'succeeded' | 'pending' | 'failed',
    outcome: AttemptOutcome,
    disableAfterSeconds: number,
  ): Statement {
    return {
      sql: `WITH verdict AS (
         SELECT s.id, s.failing_since,
           CASE WHEN $3::text = 'succeeded' THEN NULL
                WHEN $4::int = 410 THEN 'gone'
                WHEN $9::int > 0 AND s.failing_since <= now() - make_interval(secs => $9::int)
                  THEN 'failing'
           END AS reason
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
         WHERE d.id = $1 AND d.attempts = $2 AND d.status = 'pending' AND s.enabled
         FOR UPDATE OF s
       ), delivery AS (
         UPDATE webhook_deliveries
         SET status = CASE WHEN (SELECT reason FROM verdict) IS NULL THEN $3::text ELSE 'failed' END,
             claimed_until = NULL, last_response_status = $4,
             next_attempt_at = CASE WHEN $3::text = 'pending' AND (SELECT reason FROM verdict) IS NULL
               THEN now() + make_interval(secs => $5::double precision / 1000) END
         WHERE id = $1 AND attempts = $2 AND status = 'pending'
       ), subscription AS (
         UPDATE webhook_subscriptions s
         SET failing_since = CASE WHEN $3::text = 'succeeded' THEN NULL
                                  ELSE coalesce(s.failing_since, now()) END,
             enabled = v.reason IS NULL,
             disabled_at = CASE WHEN v.reason IS NOT NULL THEN now() END,
             disabled_reason = v.reason
         FROM verdict v
         WHERE s.id = v.id
           AND (v.reason IS NOT NULL OR (v.failing_since IS NULL) <> ($3::text = 'succeeded'))
         RETURNING s.id, v.reason
       ), failed AS (
         UPDATE webhook_deliveries
         SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
         WHERE subscription_id IN (SELECT id FROM verdict WHERE reason IS NOT NULL)
           AND status = 'pending' AND id <> $1
       ), attempt AS (
         UPDATE webhook_attempts
         SET outcome = $6, duration_ms = $7, response_status = $4, error = left($8, 200)
         WHERE delivery_id = $1 AND attempt = $2 AND outcome IS NULL
       )
       SELECT reason AS "disabledReason" FROM subscription WHERE reason IS NOT NULL`,
      params: [
        deliveryId,
        attempt,
        status,
        outcome.responseStatus,
        outcome.retryInMs ?? 0,
        outcome.ok ? 'succeeded' : 'failed',
        outcome.durationMs,
        outcome.error,
        disableAfterSeconds,
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
