import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks that receivers and operators can run (docs/webhooks.md): a subscription can be
 * disabled (by its owner, or automatically when its receiver is gone or keeps failing), its
 * secret rotated with an overlap, and a delivery sent again.
 */
export class WebhookControl1795900000000 implements MigrationInterface {
  name = 'WebhookControl1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        ADD COLUMN enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN disabled_at timestamptz,
        ADD COLUMN disabled_reason varchar(16)
          CONSTRAINT ck_webhook_subscriptions_disabled_reason
          CHECK (disabled_reason IN ('requested', 'gone', 'failing')),
        -- The first failed attempt since it was made, re-enabled or last succeeded.
        ADD COLUMN failing_since timestamptz,
        -- The secret before the last rotation: it signs too until it expires.
        ADD COLUMN previous_secret bytea
          CONSTRAINT ck_webhook_subscriptions_previous_secret CHECK (octet_length(previous_secret) = 32),
        ADD COLUMN previous_secret_expires_at timestamptz,
        -- How many times the secret was rotated: names each secret, for an Idempotency-Key replay.
        ADD COLUMN secret_rotations integer NOT NULL DEFAULT 0,
        ADD CONSTRAINT ck_webhook_subscriptions_disabled CHECK (
          enabled = (disabled_at IS NULL) AND enabled = (disabled_reason IS NULL)),
        ADD CONSTRAINT ck_webhook_subscriptions_previous CHECK (
          (previous_secret IS NULL) = (previous_secret_expires_at IS NULL))`);
    // Attempts made before the delivery was last sent again: the retry schedule counts from there.
    await queryRunner.query(
      `ALTER TABLE webhook_deliveries ADD COLUMN earlier_attempts integer NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN earlier_attempts`);
    await queryRunner.query(`
      ALTER TABLE webhook_subscriptions
        DROP CONSTRAINT ck_webhook_subscriptions_previous,
        DROP CONSTRAINT ck_webhook_subscriptions_disabled,
        DROP COLUMN secret_rotations,
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN previous_secret,
        DROP COLUMN failing_since,
        DROP COLUMN disabled_reason,
        DROP COLUMN disabled_at,
        DROP COLUMN enabled`);
  }
}
