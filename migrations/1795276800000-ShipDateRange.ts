import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ship dates stay within the years 0001–9999 (UTC): the range ISO 8601 clients read back, and
 * the one the API shows (placeOrder checks it too; this holds it for every writer).
 */
export class ShipDateRange1795276800000 implements MigrationInterface {
  name = 'ShipDateRange1795276800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE orders ADD CONSTRAINT ck_orders_ship_date_range
         CHECK (ship_date >= '0001-01-01T00:00:00Z' AND ship_date < '10000-01-01T00:00:00Z')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE orders DROP CONSTRAINT ck_orders_ship_date_range');
  }
}
