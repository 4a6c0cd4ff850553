import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Companion } from '../database/companion-statements.js';

/** Whose key it is: the API key, the version and the operation (contract section 10). */
export interface IdempotencyScope {
  apiKeyId: number;
  version: string;
  operation: string;
  key: string;
}

/** An answer as remembered: status, body (JSON text, as sent) and Location. */
export interface StoredAnswer {
  status: number;
  body: string;
  location: string | null;
}

/** A record this request holds: it alone may complete it (the token). */
export interface Claim {
  id: string;
  token: string;
}

/** A record found under the scope, as the claim read it. */
export interface ExistingRecord {
  id: string;
  fingerprint: Buffer;
  /** Past its retention: the key is free again. */
  expired: boolean;
  /** `in_progress` whose lock has not expired: its request may still be running. */
  running: boolean;
  /** `in_progress` whose lock has expired: its request ended without an answer (a crash). */
  abandoned: boolean;
  answer: StoredAnswer | null;
}

export type ClaimResult = { claimed: Claim } | { existing: ExistingRecord } | { raced: true };

interface ClaimRow {
  id: string;
  claimed: boolean;
  fingerprint: Buffer | null;
  state: 'in_progress' | 'completed' | null;
  locked: boolean | null;
  expired: boolean | null;
  response_status: number | null;
  response_body: string | null;
  response_location: string | null;
}

/** The companion's output: what it recorded, or null when the claim was lost. */
interface RecordedRow {
  status: number;
  body: string;
  location: string | null;
}

/** Every SQL statement about Idempotency-Key records. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One round trip: the record under the scope if there is one (read without waiting on any
   * lock, and without writing: a replay writes nothing), else a new `in_progress` record held
   * by `token`. Two requests that both saw nothing meet at the unique constraint: one inserts,
   * the other inserts nothing and sees nothing in its snapshot (`raced`: read again).
   */
  async claim(
    scope: IdempotencyScope,
    fingerprint: Buffer,
    token: string,
    lockSeconds: number,
    retentionSeconds: number,
  ): Promise<ClaimResult> {
    const rows: ClaimRow[] = await this.dataSource.query(
      `WITH existing AS (
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
      [
        scope.apiKeyId,
        scope.version,
        scope.operation,
        scope.key,
        fingerprint,
        token,
        lockSeconds,
        retentionSeconds,
      ],
    );
    const row = rows[0];
    if (!row) return { raced: true };
    if (row.claimed) return { claimed: { id: row.id, token } };
    const completed = row.state === 'completed';
    return {
      existing: {
        id: row.id,
        fingerprint: row.fingerprint ?? Buffer.alloc(0),
        expired: row.expired === true,
        running: !completed && row.locked === true,
        abandoned: !completed && row.locked !== true,
        answer:
          completed && row.response_status !== null && row.response_body !== null
            ? {
                status: row.response_status,
                body: row.response_body,
                location: row.response_location,
              }
            : null,
      },
    };
  }

  /**
   * Takes over a record whose key is free again (expired) or whose request ended without an
   * answer (lock expired): null when it is neither any more (another request took it first,
   * or the purge deleted it).
   */
  async takeOver(
    id: string,
    fingerprint: Buffer,
    token: string,
    lockSeconds: number,
    retentionSeconds: number,
  ): Promise<Claim | null> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      // A SELECT around the UPDATE: TypeORM answers an UPDATE's rows in another shape.
      `WITH taken AS (
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
      [id, fingerprint, token, lockSeconds, retentionSeconds],
    );
    return rows[0] ? { id: rows[0].id, token } : null;
  }

  /**
   * The companion that completes a claimed record in the statement that creates the resource
   * (src/database/companion-statements.ts): it locks the record first, and the create writes
   * only while this request still holds it. The answer is the created row rendered by
   * `bodySql` (SQL over `main`) with 201 and Location `locationPrefix` + id, or `refusal`
   * when the statement created nothing.
   */
  recordingCompanion(
    claim: Claim,
    answer: {
      bodySql: string;
      locationPrefix: string | null;
      refusal: { status: number; body: string };
      retentionSeconds: number;
    },
  ): Companion {
    return {
      name: 'idempotency',
      guard: `SELECT id FROM idempotency_keys WHERE id = $1 AND lock_token = $2 FOR UPDATE`,
      sql: `UPDATE idempotency_keys AS record
            SET state = 'completed', lock_token = NULL, locked_until = NULL,
                response_status = COALESCE((SELECT 201 FROM main), $3::smallint),
                response_body = COALESCE((SELECT ${answer.bodySql} FROM main), $4::text),
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
        answer.refusal.status,
        answer.refusal.body,
        answer.locationPrefix,
        answer.retentionSeconds,
      ],
    };
  }

  /** Reads the recording companion's output column: null when the claim was lost. */
  static recorded(output: unknown): StoredAnswer | null {
    if (output === null || output === undefined) return null;
    const row = output as RecordedRow;
    return { status: row.status, body: row.body, location: row.location };
  }

  /** Frees a claimed key (the request failed with a 5xx or was refused before it ran). */
  async release(claim: Claim): Promise<void> {
    await this.dataSource.query('DELETE FROM idempotency_keys WHERE id = $1 AND lock_token = $2', [
      claim.id,
      claim.token,
    ]);
  }

  /**
   * Deletes up to `batchSize` expired records; answers how many. SKIP LOCKED: instances
   * purging at once, or a request taking an expired key over, never wait on each other.
   */
  async purgeExpired(batchSize: number): Promise<number> {
    const rows: Array<{ deleted: number }> = await this.dataSource.query(
      `WITH doomed AS (
         SELECT id FROM idempotency_keys WHERE expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), deleted AS (
         DELETE FROM idempotency_keys AS record USING doomed WHERE record.id = doomed.id
         RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM deleted`,
      [batchSize],
    );
    return rows[0]?.deleted ?? 0;
  }
}
