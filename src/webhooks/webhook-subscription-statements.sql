-- src/webhooks/webhook-subscription-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- lockCreationsForKey: createWebhook, first
-- parameters: 7254400, 3
SELECT pg_advisory_xact_lock($1, $2);

-- insertUnderLimit: createWebhook
-- parameters: 3, "https://hooks.example.com/petstore", ["order.placed"], NULL, <32 bytes>, 20
INSERT INTO webhook_subscriptions (api_key_id, url, events, description, secret)
SELECT $1, $2, $3, $4, $5
WHERE (SELECT count(*) FROM webhook_subscriptions WHERE api_key_id = $1) < $6
  AND TRUE
RETURNING id, url, events, description, created_at AS "createdAt", enabled, disabled_at AS "disabledAt", disabled_reason AS "disabledReason";

-- insertUnderLimit: createWebhook under an Idempotency-Key
-- parameters: 3, "https://hooks.example.com/petstore", ["order.placed", "category.created"], "Warehouse", <32 bytes>, 20, "11", "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 409, "{\"code\":\"…\",\"message\":\"…\",\"status\":409}", "/v2/webhooks/", 86400
WITH idempotency_guard AS MATERIALIZED (SELECT id FROM idempotency_keys WHERE id = $7 AND lock_token = $8 FOR UPDATE),
main AS (INSERT INTO webhook_subscriptions (api_key_id, url, events, description, secret)
              SELECT $1, $2, $3, $4, $5
              WHERE (SELECT count(*) FROM webhook_subscriptions WHERE api_key_id = $1) < $6
                AND EXISTS (SELECT 1 FROM idempotency_guard)
              RETURNING id, url, events, description, created_at AS "createdAt", enabled, disabled_at AS "disabledAt", disabled_reason AS "disabledReason"),
idempotency AS (UPDATE idempotency_keys AS record
            SET state = 'completed', lock_token = NULL, locked_until = NULL,
                response_status = COALESCE((SELECT 201 FROM main), $9::smallint),
                response_body = COALESCE((SELECT (json_strip_nulls(json_build_object('id', main.id, 'url', main.url, 'events', main.events, 'description', main.description, 'createdAt', to_char(main."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'enabled', main.enabled, 'disabledAt', to_char(main."disabledAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'disabledReason', main."disabledReason")))::text FROM main), $10::text),
                response_location = (SELECT $11::text || main.id FROM main),
                expires_at = now() + make_interval(secs => $12)
            FROM idempotency_guard AS guard
            WHERE record.id = guard.id
            RETURNING record.response_status AS status, record.response_body AS body,
                      record.response_location AS location)
SELECT main.*, (SELECT json_build_object('status', status, 'body', body, 'location', location) FROM idempotency) AS "idempotency" FROM (SELECT) AS one LEFT JOIN main ON true;

-- secretForKey: createWebhook's Idempotency-Key replay
-- parameters: "12", 3
SELECT secret FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2;

-- findForKey: getWebhook
-- parameters: "12", 3
SELECT id, url, events, description, created_at AS "createdAt", enabled, disabled_at AS "disabledAt", disabled_reason AS "disabledReason" FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2;

-- listPageForKey: listWebhooks: first page, ascending
-- parameters: 3, NULL, 101
SELECT id, url, events, description, created_at AS "createdAt", enabled, disabled_at AS "disabledAt", disabled_reason AS "disabledReason" FROM webhook_subscriptions
WHERE api_key_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
ORDER BY id asc LIMIT $3;

-- listPageForKey: listWebhooks: a later page, descending
-- parameters: 3, "12", 21
SELECT id, url, events, description, created_at AS "createdAt", enabled, disabled_at AS "disabledAt", disabled_reason AS "disabledReason" FROM webhook_subscriptions
WHERE api_key_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
ORDER BY id desc LIMIT $3;

-- deleteForKey: deleteWebhook
-- parameters: "12", 3
DELETE FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2 RETURNING id;

-- listDeliveriesPage: listWebhookDeliveries: first page, ascending
-- parameters: 12, NULL, 101
SELECT id, event_id AS "eventId", event_type AS type, status, attempts, last_response_status AS "lastResponseStatus", last_attempt_at AS "lastAttemptAt", next_attempt_at AS "nextAttemptAt"
FROM webhook_deliveries
WHERE subscription_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
ORDER BY id asc LIMIT $3;

-- listDeliveriesPage: listWebhookDeliveries: a later page, descending
-- parameters: 12, "99", 21
SELECT id, event_id AS "eventId", event_type AS type, status, attempts, last_response_status AS "lastResponseStatus", last_attempt_at AS "lastAttemptAt", next_attempt_at AS "nextAttemptAt"
FROM webhook_deliveries
WHERE subscription_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
ORDER BY id desc LIMIT $3;

-- updateForKey: updateWebhook: a new url and description, disabled
-- parameters: "12", 3, "https://hooks.example.com/v2", NULL, true, NULL, false
WITH updated AS (
    UPDATE webhook_subscriptions s
    SET url = coalesce($3::text, s.url),
        events = coalesce($4::text[], s.events),
        description = CASE WHEN $5::boolean THEN $6::text ELSE s.description END,
        enabled = coalesce($7::boolean, s.enabled),
        disabled_at = CASE WHEN $7::boolean IS NULL OR $7::boolean = s.enabled THEN s.disabled_at
          WHEN $7::boolean THEN NULL ELSE now() END,
        disabled_reason = CASE WHEN $7::boolean IS NULL OR $7::boolean = s.enabled THEN s.disabled_reason
          WHEN $7::boolean THEN NULL ELSE 'requested' END,
        failing_since = CASE WHEN $7::boolean AND NOT s.enabled THEN NULL ELSE s.failing_since END
    WHERE s.id = $1 AND s.api_key_id = $2
    RETURNING s.id, s.url, s.events, s.description, s.created_at AS "createdAt", s.enabled, s.disabled_at AS "disabledAt", s.disabled_reason AS "disabledReason"
  ), failed AS (
    UPDATE webhook_deliveries
SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
WHERE subscription_id IN (SELECT id FROM updated WHERE $7::boolean IS FALSE) AND status = 'pending'
  )
  SELECT * FROM updated;

-- rotateSecretForKey: rotateWebhookSecret, the previous secret signing for a day
-- parameters: "12", 3, <32 bytes>, 86400
UPDATE webhook_subscriptions
SET previous_secret = secret, secret = $3, secret_rotations = secret_rotations + 1,
    previous_secret_expires_at = now() + make_interval(secs => $4::double precision)
WHERE id = $1 AND api_key_id = $2 AND TRUE
RETURNING id, secret_rotations, previous_secret_expires_at;

-- secretOfRotation: rotateWebhookSecret, a replay: the secret that rotation made
-- parameters: "12", 3, 2
SELECT CASE WHEN secret_rotations = $3 THEN secret
            WHEN secret_rotations = $3 + 1 AND previous_secret_expires_at > now()
              THEN previous_secret END AS secret
FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2;

-- stopForKey: deleteWebhook, first: no attempt claimed after it
-- parameters: "12", 3
WITH stopped AS (
    UPDATE webhook_subscriptions
    SET enabled = false, disabled_at = coalesce(disabled_at, now()),
        disabled_reason = coalesce(disabled_reason, 'requested')
    WHERE id = $1 AND api_key_id = $2
    RETURNING id
  ), failed AS (
    UPDATE webhook_deliveries
SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
WHERE subscription_id IN (SELECT id FROM stopped) AND status = 'pending'
  )
  SELECT id FROM stopped;

-- attemptsUnderWay: deleteWebhook, then: waits for the attempts under way
-- parameters: 12, 10000
SELECT count(*)::int AS count
FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
WHERE d.subscription_id = $1 AND a.outcome IS NULL
  AND a.started_at > now() - make_interval(secs => $2::double precision / 1000);

-- findDelivery: getWebhookDelivery
-- parameters: 12, "evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10"
SELECT d.id, d.event_id AS "eventId", d.event_type AS type, d.status, d.attempts, d.last_response_status AS "lastResponseStatus", d.last_attempt_at AS "lastAttemptAt", d.next_attempt_at AS "nextAttemptAt", d.payload,
  (SELECT coalesce(json_agg(json_build_object(
             'at', to_char(a.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'responseStatus', a.response_status,
             'durationMs', a.duration_ms,
             'error', CASE WHEN a.outcome = 'interrupted' THEN 'interrupted' ELSE a.error END)
           ORDER BY a.attempt), '[]'::json)
   FROM (SELECT * FROM webhook_attempts
         WHERE delivery_id = d.id ORDER BY attempt DESC LIMIT 20) a
  ) AS "attemptLog"
FROM webhook_deliveries d
WHERE d.subscription_id = $1 AND d.event_id = $2;

-- sendAgain: redeliverWebhookDelivery
-- parameters: 12, "evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10", NULL
WITH subscription AS (
  SELECT enabled FROM webhook_subscriptions WHERE id = $1 FOR SHARE
), target AS (
  SELECT d.id, d.status FROM webhook_deliveries d
  WHERE d.subscription_id = $1
    AND CASE WHEN $2::text IS NULL THEN d.status = 'failed' AND d.created_at >= $3::timestamptz
        ELSE d.event_id = $2::text END
), requeued AS (
  UPDATE webhook_deliveries d
  SET status = 'pending', next_attempt_at = now(), claimed_until = NULL,
      earlier_attempts = d.attempts
  FROM target t
  WHERE d.id = t.id AND d.status <> 'pending' AND (SELECT enabled FROM subscription)
  RETURNING d.id
)
SELECT (SELECT enabled FROM subscription) AS enabled,
       (SELECT status FROM target LIMIT 1) AS "previousStatus",
       (SELECT count(*)::int FROM requeued) AS requeued;

-- sendAgain: recoverWebhookDeliveries
-- parameters: 12, NULL, "2026-11-25T10:00:00.000000Z"
WITH subscription AS (
  SELECT enabled FROM webhook_subscriptions WHERE id = $1 FOR SHARE
), target AS (
  SELECT d.id, d.status FROM webhook_deliveries d
  WHERE d.subscription_id = $1
    AND CASE WHEN $2::text IS NULL THEN d.status = 'failed' AND d.created_at >= $3::timestamptz
        ELSE d.event_id = $2::text END
), requeued AS (
  UPDATE webhook_deliveries d
  SET status = 'pending', next_attempt_at = now(), claimed_until = NULL,
      earlier_attempts = d.attempts
  FROM target t
  WHERE d.id = t.id AND d.status <> 'pending' AND (SELECT enabled FROM subscription)
  RETURNING d.id
)
SELECT (SELECT enabled FROM subscription) AS enabled,
       (SELECT status FROM target LIMIT 1) AS "previousStatus",
       (SELECT count(*)::int FROM requeued) AS requeued;
