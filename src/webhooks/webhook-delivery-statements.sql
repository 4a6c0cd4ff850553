-- src/webhooks/webhook-delivery-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- claimDue: the dispatcher claims due deliveries
-- parameters: 16, 30000
WITH due AS (
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
FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id;

-- recordAttempts: a batch of attempts: one succeeded, one failed and retried later
-- parameters: ["98", "99"], [1, 2], ["succeeded", "pending"], [204, 503], [0, 30000], [3, 120], [NULL, "HTTP 503"], 432000
WITH outcome AS (
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
WHERE reason IS NOT NULL;

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
