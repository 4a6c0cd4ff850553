-- src/idempotency/idempotency-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- claim: a request with an Idempotency-Key
-- parameters: 3, "v1", "placeOrder", "k-1", <32 bytes>, "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 60, 86400
WITH existing AS (
  SELECT id, fingerprint, state, locked_until > now() AS locked, expires_at <= now() AS expired,
         response_status, response_body, response_location
  FROM idempotency_keys
  WHERE api_key_id = $1 AND version = $2 AND operation = $3 AND key = $4
), inserted AS (
  INSERT INTO idempotency_keys
    (api_key_id, version, operation, key, fingerprint, state, lock_token, locked_until, expires_at)
  SELECT $1, $2, $3, $4, $5, 'in_progress', $6,
         now() + make_interval(secs => $7), now() + make_interval(secs => $8)
  WHERE NOT EXISTS (SELECT 1 FROM existing)
  ON CONFLICT ON CONSTRAINT uq_idempotency_keys_scope DO NOTHING
  RETURNING id
)
SELECT id, true AS claimed, NULL::bytea AS fingerprint, NULL::varchar AS state,
       NULL::boolean AS locked, NULL::boolean AS expired, NULL::smallint AS response_status,
       NULL::text AS response_body, NULL::varchar AS response_location
FROM inserted
UNION ALL
SELECT id, false, fingerprint, state, locked, expired, response_status, response_body,
       response_location
FROM existing;

-- takeOver: a key free again
-- parameters: "11", <32 bytes>, "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 60, 86400
WITH taken AS (
  UPDATE idempotency_keys
  SET fingerprint = $2, state = 'in_progress', lock_token = $3,
      locked_until = now() + make_interval(secs => $4),
      expires_at = now() + make_interval(secs => $5), created_at = now(),
      response_status = NULL, response_body = NULL, response_location = NULL
  WHERE id = $1
    AND (expires_at <= now() OR (state = 'in_progress' AND locked_until <= now()))
  RETURNING id
)
SELECT id FROM taken;

-- recordResponse: a create's record (the create's own statements show it in place)
-- parameters: "11", "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f", 409, "{\"code\":\"…\",\"message\":\"…\",\"status\":409}", "/v1/store/orders/", 86400
-- guard, idempotency_guard:
SELECT id FROM idempotency_keys WHERE id = $1 AND lock_token = $2 FOR UPDATE;
-- idempotency:
UPDATE idempotency_keys AS record
SET state = 'completed', lock_token = NULL, locked_until = NULL,
    response_status = COALESCE((SELECT 201 FROM main), $3::smallint),
    response_body = COALESCE((SELECT (<the resource json over main>)::text FROM main), $4::text),
    response_location = (SELECT $5::text || main.id FROM main),
    expires_at = now() + make_interval(secs => $6)
FROM idempotency_guard AS guard
WHERE record.id = guard.id
RETURNING record.response_status AS status, record.response_body AS body,
          record.response_location AS location;
-- output "idempotency":
SELECT json_build_object('status', status, 'body', body, 'location', location) FROM idempotency;

-- release: a key freed after a failure
-- parameters: "11", "6f1c3b0e-1d2a-4c5b-9e8f-7a6b5c4d3e2f"
DELETE FROM idempotency_keys WHERE id = $1 AND lock_token = $2;

-- purgeExpired: the purge of expired records
-- parameters: 1000
WITH doomed AS (
  SELECT id FROM idempotency_keys WHERE expires_at <= now()
  ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM idempotency_keys AS record USING doomed WHERE record.id = doomed.id
  RETURNING 1
)
SELECT count(*)::int AS deleted FROM deleted;
