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
RETURNING id, url, events, description, created_at AS "createdAt";

-- insertUnderLimit: createWebhook under an Idempotency-Key
-- parameters: 3, "https://hooks.example.com/petstore", ["order.placed", "category.created"], "Warehouse", <32 bytes>, 20, "11", "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 409, "{\"code\":\"…\",\"message\":\"…\",\"status\":409}", "/v2/webhooks/", 86400
WITH idempotency_guard AS MATERIALIZED (SELECT id FROM idempotency_keys WHERE id = $7 AND lock_token = $8 FOR UPDATE),
main AS (INSERT INTO webhook_subscriptions (api_key_id, url, events, description, secret)
              SELECT $1, $2, $3, $4, $5
              WHERE (SELECT count(*) FROM webhook_subscriptions WHERE api_key_id = $1) < $6
                AND EXISTS (SELECT 1 FROM idempotency_guard)
              RETURNING id, url, events, description, created_at AS "createdAt"),
idempotency AS (UPDATE idempotency_keys AS record
            SET state = 'completed', lock_token = NULL, locked_until = NULL,
                response_status = COALESCE((SELECT 201 FROM main), $9::smallint),
                response_body = COALESCE((SELECT (json_strip_nulls(json_build_object('id', main.id, 'url', main.url, 'events', main.events, 'description', main.description, 'createdAt', to_char(main."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))::text FROM main), $10::text),
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
SELECT id, url, events, description, created_at AS "createdAt" FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2;

-- listPageForKey: listWebhooks: first page, ascending
-- parameters: 3, NULL, 101
SELECT id, url, events, description, created_at AS "createdAt" FROM webhook_subscriptions
WHERE api_key_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
ORDER BY id asc LIMIT $3;

-- listPageForKey: listWebhooks: a later page, descending
-- parameters: 3, "12", 21
SELECT id, url, events, description, created_at AS "createdAt" FROM webhook_subscriptions
WHERE api_key_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
ORDER BY id desc LIMIT $3;

-- deleteForKey: deleteWebhook
-- parameters: "12", 3
WITH deleted AS (
  DELETE FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2 RETURNING id
)
SELECT id FROM deleted;

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
