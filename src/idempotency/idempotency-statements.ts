import type { AttachedWrite } from '../database/attached-writes.js';
import type { Statement } from '../database/statement.js';
import type { Claim, HoldTerms, IdempotencyScope } from './idempotency.repository.js';

/** What a create's statement records under a claimed key (see recordResponse). */
export interface ResponseToRecord {
  /** The created resource as the API shows it: SQL (json) over the created row `main`. */
  bodySql: string;
  /** Location of the created resource is this followed by its id; null: no Location. */
  locationPrefix: string | null;
  /** The answer when the statement creates nothing (the operation's own rejection). */
  rejection: { status: number; body: string };
  retentionSeconds: number;
}

/*
 * Every statement about Idempotency-Key records, built without Nest or TypeORM:
 * IdempotencyRepository runs them, and src/idempotency/idempotency-statements.sql keeps the
 * SQL they make for review (`npm run sql:snapshot`).
 */
export const idempotencyStatements = {
  /**
   * The record under the scope if there is one (read without waiting on any lock, and without
   * writing), else a new `in_progress` record held by `token`: one row, `claimed` true for a
   * new record. No row when another request inserted the scope's record after this
   * statement's snapshot began (the unique constraint).
   */
  claim(scope: IdempotencyScope, terms: HoldTerms): Statement {
    return {
      sql: `WITH existing AS (
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
       FROM existing`,
      params: [
        scope.apiKeyId,
        scope.version,
        scope.operation,
        scope.key,
        terms.fingerprint,
        terms.token,
        terms.lockSeconds,
        terms.retentionSeconds,
      ],
    };
  },

  /**
   * Takes record `id` over for `token` if its key is free again (expired) or its request ended
   * without an answer (lock expired): answers its id, no row when it is neither.
   */
  takeOver(id: string, terms: HoldTerms): Statement {
    return {
      // A SELECT around the UPDATE: TypeORM answers an UPDATE's rows in another shape.
      sql: `WITH taken AS (
         UPDATE idempotency_keys
         SET fingerprint = $2, state = 'in_progress', lock_token = $3,
             locked_until = now() + make_interval(secs => $4),
             expires_at = now() + make_interval(secs => $5), created_at = now(),
             response_status = NULL, response_body = NULL, response_location = NULL
         WHERE id = $1
           AND (expires_at <= now() OR (state = 'in_progress' AND locked_until <= now()))
         RETURNING id
       )
       SELECT id FROM taken`,
      params: [id, terms.fingerprint, terms.token, terms.lockSeconds, terms.retentionSeconds],
    };
  },

  /**
   * The attached write (src/database/attached-writes.ts) that completes a claimed record in
   * the statement that creates the resource: it locks the record first, and the create writes
   * only while the claim still holds it. The answer is the created row rendered by `bodySql`
   * (json, over `main`) with 201 and Location `locationPrefix` + id, or `rejection` when the
   * statement created nothing. Its output: the recorded status, body and location.
   */
  recordResponse(claim: Claim, answer: ResponseToRecord): AttachedWrite {
    return {
      name: 'idempotency',
      guard: `SELECT id FROM idempotency_keys WHERE id = $1 AND lock_token = $2 FOR UPDATE`,
      sql: `UPDATE idempotency_keys AS record
            SET state = 'completed', lock_token = NULL, locked_until = NULL,
                response_status = COALESCE((SELECT 201 FROM main), $3::smallint),
                response_body = COALESCE((SELECT (${answer.bodySql})::text FROM main), $4::text),
                response_location = (SELECT $5::text || main.id FROM main),
                expires_at = now() + make_interval(secs => $6)
            FROM idempotency_guard AS guard
            WHERE record.id = guard.id
            RETURNING record.response_status AS status, record.response_body AS body,
                      record.response_location AS location`,
      output: `json_build_object('status', status, 'body', body, 'location', location)`,
      params: [
        claim.id,
        claim.token,
        answer.rejection.status,
        answer.rejection.body,
        answer.locationPrefix,
        answer.retentionSeconds,
      ],
    };
  },

  /** Frees a claimed record: deletes it while `claim` still holds it. */
  release(claim: Claim): Statement {
    return {
      sql: 'DELETE FROM idempotency_keys WHERE id = $1 AND lock_token = $2',
      params: [claim.id, claim.token],
    };
  },

  /**
   * Deletes up to `batchSize` expired records; answers how many (`deleted`). SKIP LOCKED:
   * instances purging at once, or a request taking an expired key over, never wait on each other.
   */
  purgeExpired(batchSize: number): Statement {
    return {
      sql: `WITH doomed AS (
         SELECT id FROM idempotency_keys WHERE expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), deleted AS (
         DELETE FROM idempotency_keys AS record USING doomed WHERE record.id = doomed.id
         RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM deleted`,
      params: [batchSize],
    };
  },
};
