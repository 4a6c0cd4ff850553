import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key records (contract section 10): one per (API key, version, operation, key).
 * A record is claimed `in_progress` under a lock that expires (a crashed instance cannot hold a
 * key for good), then completed with the answer to replay, in the same statement that creates
 * the order or category. Expired records are purged in batches by expiry (ix_idempotency_keys_expires_at).
 */
export class IdempotencyKeys1795500000000 implements MigrationInterface {
  name = 'IdempotencyKeys1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        api_key_id bigint NOT NULL
          CONSTRAINT fk_idempotency_keys_api_key REFERENCES api_keys (id) ON DELETE CASCADE,
        version varchar(8) NOT NULL,
        operation varchar(64) NOT NULL,
        key varchar(255) NOT NULL
          CONSTRAINT ck_idempotency_keys_key CHECK (key ~ '^[\\x21-\\x7e]{1,255}$'),
        fingerprint bytea NOT NULL
          CONSTRAINT ck_idempotency_keys_fingerprint CHECK (octet_length(fingerprint) = 32),
        state varchar(16) NOT NULL
          CONSTRAINT ck_idempotency_keys_state CHECK (state IN ('in_progress', 'completed')),
        lock_token uuid,
        locked_until timestamptz,
        response_status smallint,
        response_body text,
        response_location varchar(2048),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CONSTRAINT uq_idempotency_keys_scope UNIQUE (api_key_id, version, operation, key),
        CONSTRAINT ck_idempotency_keys_in_progress CHECK (
          state <> 'in_progress' OR (lock_token IS NOT NULL AND locked_until IS NOT NULL)),
        CONSTRAINT ck_idempotency_keys_completed CHECK (
          state <> 'completed' OR (response_status IS NOT NULL AND response_body IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_idempotency_keys_expires_at ON idempotency_keys (expires_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
