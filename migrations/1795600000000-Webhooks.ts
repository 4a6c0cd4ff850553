import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (contract section 11). A subscription belongs to an API key. The outbox is the
 * deliveries table: the statement that changes an order or a category inserts one row per
 * (event, subscription), so an event commits with its change or not at all. Each attempt is
 * a row of its own; its primary key (delivery, attempt number) holds "each attempt once".
 */
export class Webhooks1795600000000 implements MigrationInterface {
  name = 'Webhooks1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_subscriptions (
        id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        api_key_id bigint NOT NULL
          CONSTRAINT fk_webhook_subscriptions_api_key REFERENCES api_keys (id) ON DELETE CASCADE,
        url text NOT NULL CONSTRAINT ck_webhook_subscriptions_url CHECK (char_length(url) <= 2048),
        events text[] NOT NULL CONSTRAINT ck_webhook_subscriptions_events CHECK (
          cardinality(events) >= 1
          AND events <@ ARRAY['order.placed', 'order.shipped', 'order.cancelled', 'category.created']),
        description varchar(500),
        -- The 32 signing bytes: selected only by the dispatcher, never by an answer.
        secret bytea NOT NULL CONSTRAINT ck_webhook_subscriptions_secret CHECK (octet_length(secret) = 32),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_webhook_subscriptions_api_key_id ON webhook_subscriptions (api_key_id, id)`,
    );

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        subscription_id bigint NOT NULL CONSTRAINT fk_webhook_deliveries_subscription
          REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        -- The event body, exactly as sent on every attempt.
        payload text NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending'
          CONSTRAINT ck_webhook_deliveries_status CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        -- Set while an instance is attempting it; a crashed instance's claim runs out.
        claimed_until timestamptz,
        last_attempt_at timestamptz,
        last_response_status integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_webhook_deliveries_event UNIQUE (subscription_id, event_id),
        CONSTRAINT ck_webhook_deliveries_next CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_subscription_id ON webhook_deliveries (subscription_id, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_webhook_deliveries_created_at ON webhook_deliveries (created_at) WHERE status <> 'pending'`,
    );

    await queryRunner.query(`
      CREATE TABLE webhook_attempts (
        delivery_id bigint NOT NULL CONSTRAINT fk_webhook_attempts_delivery
          REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer,
        response_status integer,
        -- NULL while in flight; interrupted when its instance died before recording it.
        outcome varchar(16) CONSTRAINT ck_webhook_attempts_outcome
          CHECK (outcome IN ('succeeded', 'failed', 'interrupted')),
        error varchar(200),
        PRIMARY KEY (delivery_id, attempt)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_subscriptions`);
  }
}
