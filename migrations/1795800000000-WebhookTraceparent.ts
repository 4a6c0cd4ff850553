import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tracing (docs/operating.md): each webhook delivery keeps the W3C traceparent of the request
 * that made its change, so that its attempts join that trace. Null when the change was not
 * traced. A nullable column without a default: adding it rewrites nothing.
 */
export class WebhookTraceparent1795800000000 implements MigrationInterface {
  name = 'WebhookTraceparent1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_deliveries ADD COLUMN traceparent text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN traceparent`);
  }
}
