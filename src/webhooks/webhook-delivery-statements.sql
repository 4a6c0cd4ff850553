-- src/webhooks/webhook-delivery-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- claimDue: the dispatcher claims due deliveries
-- parameters: 16, 30000
WITH due AS (
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
FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id;

-- recordAttempt: an attempt failed, retried later
-- parameters: "99", 2, "pending", 503, 30000, "failed", 120, "HTTP 503"
WITH delivery AS (
  UPDATE webhook_deliveries
  SET status = $3::text, claimed_until = NULL, last_response_status = $4,
      next_attempt_at = CASE WHEN $3::text = 'pending'
        THEN now() + make_interval(secs => $5::double precision / 1000) END
  WHERE id = $1 AND attempts = $2 AND status = 'pending'
)
UPDATE webhook_attempts
SET outcome = $6, duration_ms = $7, response_status = $4, error = left($8, 200)
WHERE delivery_id = $1 AND attempt = $2 AND outcome IS NULL;

-- pendingBacklog: the backlog metrics
SELECT count(*)::int AS count,
       extract(epoch FROM now() - min(created_at))::float8 AS age
FROM webhook_deliveries WHERE status = 'pending';

-- purgeFinished: the purge of finished deliveries
-- parameters: 604800000, 1000
WITH purged AS (
  DELETE FROM webhook_deliveries WHERE id IN (
    SELECT id FROM webhook_deliveries
    WHERE status <> 'pending'
      AND created_at < now() - make_interval(secs => $1::double precision / 1000)
    LIMIT $2)
  RETURNING id
)
SELECT id FROM purged;
