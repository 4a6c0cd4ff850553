-- src/store/order-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- listAll: v1 listOrders
SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders ORDER BY id;

-- listPage: v2 listOrders: first page, ascending, no filter
-- parameters: 101
SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders
ORDER BY id ASC LIMIT $1;

-- listPage: v2 listOrders: a later page, descending, one status
-- parameters: "42", 21, "pending"
SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders
WHERE id < $1 AND status = $3
ORDER BY id DESC LIMIT $2;

-- listPage: v2 listOrders: a later page, every filter, two statuses
-- parameters: "42", "7", "2026-01-01T00:00:00.000000Z", "2027-01-01T00:00:00.000000Z", 101, "pending", "shipped"
SELECT * FROM ((SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders
WHERE id > $1 AND pet_id = $2 AND ship_date >= $3::timestamptz AND ship_date < $4::timestamptz AND status = $6
ORDER BY id ASC LIMIT $5) UNION ALL (SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders
WHERE id > $1 AND pet_id = $2 AND ship_date >= $3::timestamptz AND ship_date < $4::timestamptz AND status = $7
ORDER BY id ASC LIMIT $5)) AS page ORDER BY id ASC LIMIT $5;

-- findById: getOrderById
-- parameters: "42"
SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders WHERE id = $1;

-- insertForExistingPet: placeOrder
-- parameters: "7", 2, "2026-12-01T08:30:00.000Z", NULL
WITH main AS (INSERT INTO orders (pet_id, quantity, ship_date)
              SELECT id, $2, $3 FROM pets WHERE id = $1 AND TRUE
              RETURNING id, pet_id AS "petId", quantity, ship_date AS "shipDate", status),
webhook_event AS MATERIALIZED (SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
           json_strip_nulls(json_build_object('id', main.id, 'petId', main."petId", 'quantity', main.quantity, 'shipDate', to_char(main."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'complete', main.status = 'shipped', 'status', main.status)) AS data
    FROM main),
webhook_outbox AS (INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
    SELECT s.id, e.id, 'order.placed', json_build_object('id', e.id, 'type', 'order.placed',
             'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', e.data)::text, now(), $4::text
    FROM webhook_event e JOIN webhook_subscriptions s ON 'order.placed' = ANY (s.events))
SELECT main.* FROM (SELECT) AS one LEFT JOIN main ON true;

-- insertForExistingPet: placeOrder under an Idempotency-Key
-- parameters: "7", 2, NULL, NULL, "11", "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 409, "{\"code\":\"…\",\"message\":\"…\",\"status\":409}", "/v1/store/orders/", 86400
WITH idempotency_guard AS MATERIALIZED (SELECT id FROM idempotency_keys WHERE id = $5 AND lock_token = $6 FOR UPDATE),
main AS (INSERT INTO orders (pet_id, quantity, ship_date)
              SELECT id, $2, $3 FROM pets WHERE id = $1 AND EXISTS (SELECT 1 FROM idempotency_guard)
              RETURNING id, pet_id AS "petId", quantity, ship_date AS "shipDate", status),
webhook_event AS MATERIALIZED (SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
           json_strip_nulls(json_build_object('id', main.id, 'petId', main."petId", 'quantity', main.quantity, 'shipDate', to_char(main."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'complete', main.status = 'shipped', 'status', main.status)) AS data
    FROM main),
webhook_outbox AS (INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
    SELECT s.id, e.id, 'order.placed', json_build_object('id', e.id, 'type', 'order.placed',
             'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', e.data)::text, now(), $4::text
    FROM webhook_event e JOIN webhook_subscriptions s ON 'order.placed' = ANY (s.events)),
idempotency AS (UPDATE idempotency_keys AS record
            SET state = 'completed', lock_token = NULL, locked_until = NULL,
                response_status = COALESCE((SELECT 201 FROM main), $7::smallint),
                response_body = COALESCE((SELECT (json_strip_nulls(json_build_object('id', main.id, 'petId', main."petId", 'quantity', main.quantity, 'shipDate', to_char(main."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'complete', main.status = 'shipped', 'status', main.status)))::text FROM main), $8::text),
                response_location = (SELECT $9::text || main.id FROM main),
                expires_at = now() + make_interval(secs => $10)
            FROM idempotency_guard AS guard
            WHERE record.id = guard.id
            RETURNING record.response_status AS status, record.response_body AS body,
                      record.response_location AS location)
SELECT main.*, (SELECT json_build_object('status', status, 'body', body, 'location', location) FROM idempotency) AS "idempotency" FROM (SELECT) AS one LEFT JOIN main ON true;

-- cancelIfPending: cancelOrder
-- parameters: "42", NULL
WITH target AS (
     SELECT id, status FROM orders WHERE id = $1 FOR UPDATE
   ), changed AS (
     UPDATE orders SET status = 'cancelled', updated_at = now()
     FROM target WHERE orders.id = target.id AND target.status = 'pending'
     RETURNING orders.id, orders.pet_id AS "petId", orders.quantity, orders.ship_date AS "shipDate", orders.status
   ), webhook_event AS MATERIALIZED (SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
       json_strip_nulls(json_build_object('id', changed.id, 'petId', changed."petId", 'quantity', changed.quantity, 'shipDate', to_char(changed."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'complete', changed.status = 'shipped', 'status', changed.status)) AS data
FROM changed), webhook_outbox AS (INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
SELECT s.id, e.id, 'order.cancelled', json_build_object('id', e.id, 'type', 'order.cancelled',
         'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'data', e.data)::text, now(), $2::text
FROM webhook_event e JOIN webhook_subscriptions s ON 'order.cancelled' = ANY (s.events))
   SELECT target.status AS "previousStatus" FROM target;

-- shipIfPending: shipOrder
-- parameters: "42", NULL
WITH target AS (
     SELECT id, pet_id AS "petId", quantity, ship_date AS "shipDate", status FROM orders WHERE id = $1 FOR UPDATE
   ), changed AS (
     UPDATE orders SET status = 'shipped', ship_date = now(), updated_at = now()
     FROM target WHERE orders.id = target.id AND target.status = 'pending'
     RETURNING orders.id, orders.pet_id AS "petId", orders.quantity, orders.ship_date AS "shipDate", orders.status
   ), webhook_event AS MATERIALIZED (SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
       json_strip_nulls(json_build_object('id', changed.id, 'petId', changed."petId", 'quantity', changed.quantity, 'shipDate', to_char(changed."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'complete', changed.status = 'shipped', 'status', changed.status)) AS data
FROM changed), webhook_outbox AS (INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
SELECT s.id, e.id, 'order.shipped', json_build_object('id', e.id, 'type', 'order.shipped',
         'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'data', e.data)::text, now(), $2::text
FROM webhook_event e JOIN webhook_subscriptions s ON 'order.shipped' = ANY (s.events))
   SELECT target.status AS "previousStatus", shown.*
   FROM target CROSS JOIN (
     SELECT * FROM changed
     UNION ALL
     SELECT * FROM target WHERE NOT EXISTS (SELECT FROM changed)
   ) AS shown;
