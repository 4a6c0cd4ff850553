-- src/categories/category-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- listAll: v1 listCategories
SELECT id, name, description FROM categories ORDER BY id;

-- listPage: v2 listCategories: first page, ascending
-- parameters: 101
SELECT id, name, description FROM categories ORDER BY id asc LIMIT $1;

-- listPage: v2 listCategories: a later page, descending
-- parameters: 21, "42"
SELECT id, name, description FROM categories WHERE id < $2
ORDER BY id desc LIMIT $1;

-- insertUnlessNameTaken: createCategory
-- parameters: "dog", "Dogs", NULL
WITH main AS (INSERT INTO categories (name, description) SELECT $1, $2 WHERE TRUE
              ON CONFLICT ((lower(name))) DO NOTHING
              RETURNING id, name, description),
webhook_event AS MATERIALIZED (SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
           json_strip_nulls(json_build_object('id', main.id, 'name', main.name, 'description', main.description)) AS data
    FROM main),
webhook_outbox AS (INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
    SELECT s.id, e.id, 'category.created', json_build_object('id', e.id, 'type', 'category.created',
             'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', e.data)::text, now(), $3::text
    FROM webhook_event e JOIN webhook_subscriptions s ON 'category.created' = ANY (s.events))
SELECT main.* FROM (SELECT) AS one LEFT JOIN main ON true;

-- insertUnlessNameTaken: createCategory under an Idempotency-Key
-- parameters: "dog", NULL, NULL, "11", "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 409, "{\"code\":\"…\",\"message\":\"…\",\"status\":409}", NULL, 86400
WITH idempotency_guard AS MATERIALIZED (SELECT id FROM idempotency_keys WHERE id = $4 AND lock_token = $5 FOR UPDATE),
main AS (INSERT INTO categories (name, description) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM idempotency_guard)
              ON CONFLICT ((lower(name))) DO NOTHING
              RETURNING id, name, description),
webhook_event AS MATERIALIZED (SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
           json_strip_nulls(json_build_object('id', main.id, 'name', main.name, 'description', main.description)) AS data
    FROM main),
webhook_outbox AS (INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
    SELECT s.id, e.id, 'category.created', json_build_object('id', e.id, 'type', 'category.created',
             'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', e.data)::text, now(), $3::text
    FROM webhook_event e JOIN webhook_subscriptions s ON 'category.created' = ANY (s.events)),
idempotency AS (UPDATE idempotency_keys AS record
            SET state = 'completed', lock_token = NULL, locked_until = NULL,
                response_status = COALESCE((SELECT 201 FROM main), $6::smallint),
                response_body = COALESCE((SELECT (json_strip_nulls(json_build_object('id', main.id, 'name', main.name, 'description', main.description)))::text FROM main), $7::text),
                response_location = (SELECT $8::text || main.id FROM main),
                expires_at = now() + make_interval(secs => $9)
            FROM idempotency_guard AS guard
            WHERE record.id = guard.id
            RETURNING record.response_status AS status, record.response_body AS body,
                      record.response_location AS location)
SELECT main.*, (SELECT json_build_object('status', status, 'body', body, 'location', location) FROM idempotency) AS "idempotency" FROM (SELECT) AS one LEFT JOIN main ON true;
