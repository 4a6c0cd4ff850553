import type { Statement } from '../database/statement.js';
import type { AttemptOutcome } from './webhook-delivery.repository.js';

/** One attempt to record: its delivery, its number, what comes next and how it went. */
export interface RecordedAttempt {
  deliveryId: string;
  attempt: number;
  /** succeeded, pending (a retry in outcome.retryInMs) or failed for good. */
  status: 'succeeded' | 'pending' | 'failed';
  outcome: AttemptOutcome;
}

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
   * Records a batch of attempts (`attempts`, in the order they ended) and what comes next for
   * each delivery: succeeded, pending (a retry in `retryInMs`) or failed. Each only while its
   * attempt still holds the claim: if its claim ran out and another instance took the delivery
   * over, that one's attempt decides. The subscriptions concerned are locked in id order (no
   * deadlock between instances), and for each, as if its attempts were recorded one by one:
   * its failing clock stops at a success and starts at a failure; a failure disables it (`gone`
   * on a 410; `failing` when its first attempt here failed and the clock had already run
   * `disableAfterSeconds`, 0 never), which fails its other pending deliveries (a delivery that
   * succeeded stays succeeded). Answers the subscriptions it disabled, with the reason.
   */
  recordAttempts(attempts: readonly RecordedAttempt[], disableAfterSeconds: number): Statement {
    return {
      sql: `WITH outcome AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::int[], $5::float8[],
                              $6::int[], $7::text[]) WITH ORDINALITY
           AS o(id, attempt, status, response_status, retry_in_ms, duration_ms, error, seq)
       ), current AS (
         SELECT o.*, d.subscription_id
         FROM outcome o JOIN webhook_deliveries d
           ON d.id = o.id AND d.attempts = o.attempt AND d.status = 'pending'
       ), locked AS (
         SELECT s.id, s.failing_since FROM webhook_subscriptions s
         WHERE s.id IN (SELECT subscription_id FROM current) AND s.enabled
         ORDER BY s.id
         FOR UPDATE
       ), verdict AS (
         SELECT l.id, l.failing_since,
           CASE WHEN bool_or(c.status <> 'succeeded' AND c.response_status = 410) THEN 'gone'
                WHEN $8::int > 0 AND (array_agg(c.status ORDER BY c.seq))[1] <> 'succeeded'
                  AND l.failing_since <= now() - make_interval(secs => $8::int) THEN 'failing'
           END AS reason,
           CASE WHEN (array_agg(c.status ORDER BY c.seq DESC))[1] = 'succeeded' THEN NULL
                WHEN bool_or(c.status = 'succeeded') THEN now()
                ELSE coalesce(l.failing_since, now())
           END AS failing_since_after
         FROM locked l JOIN current c ON c.subscription_id = l.id
         GROUP BY l.id, l.failing_since
       ), delivery AS (
         UPDATE webhook_deliveries d
         SET status = CASE WHEN v.reason IS NOT NULL AND c.status <> 'succeeded' THEN 'failed'
                           ELSE c.status END,
             claimed_until = NULL, last_response_status = c.response_status,
             next_attempt_at = CASE WHEN c.status = 'pending' AND v.reason IS NULL
               THEN now() + make_interval(secs => c.retry_in_ms / 1000) END
         FROM current c LEFT JOIN verdict v ON v.id = c.subscription_id
         WHERE d.id = c.id AND d.attempts = c.attempt AND d.status = 'pending'
       ), subscription AS (
         UPDATE webhook_subscriptions s
         SET failing_since = v.failing_since_after,
             enabled = v.reason IS NULL,
             disabled_at = CASE WHEN v.reason IS NOT NULL THEN now() END,
             disabled_reason = v.reason
         FROM verdict v
         WHERE s.id = v.id
           AND (v.reason IS NOT NULL OR v.failing_since IS DISTINCT FROM v.failing_since_after)
         RETURNING s.id, v.reason
       ), failed AS (
         UPDATE webhook_deliveries
         SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
         WHERE subscription_id IN (SELECT id FROM verdict WHERE reason IS NOT NULL)
           AND status = 'pending' AND id NOT IN (SELECT id FROM current)
       ), attempt AS (
         UPDATE webhook_attempts a
         SET outcome = CASE WHEN o.status = 'succeeded' THEN 'succeeded' ELSE 'failed' END,
             duration_ms = o.duration_ms, response_status = o.response_status,
             error = left(o.error, 200)
         FROM outcome o
         WHERE a.delivery_id = o.id AND a.attempt = o.attempt AND a.outcome IS NULL
       )
       SELECT id AS "subscriptionId", reason AS "disabledReason" FROM subscription
       WHERE reason IS NOT NULL`,
      params: [
        attempts.map((a) => a.deliveryId),
        attempts.map((a) => a.attempt),
        attempts.map((a) => a.status),
        attempts.map((a) => a.outcome.responseStatus),
        attempts.map((a) => a.outcome.retryInMs ?? 0),
        attempts.map((a) => a.outcome.durationMs),
        attempts.map((a) => a.outcome.error),
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
