import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * v2's paged lists (contract section 9): an index per filter, each ending in the id so that a
 * page is one ordered index range (keyset), and the table of the secrets every instance shares
 * (the key that signs page cursors).
 *
 * Plain CREATE INDEX, inside the migration's transaction: CONCURRENTLY cannot run in one, and
 * it waits for every older snapshot, including that of an instance waiting on the migration
 * advisory lock held by this very session, which would deadlock a start of several instances.
 * The orders table is write-locked while the indexes build (seconds for a million rows).
 */
export class PagedLists1795400000000 implements MigrationInterface {
  name = 'PagedLists1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX ix_orders_status_id ON orders (status, id)`);
    await queryRunner.query(`CREATE INDEX ix_orders_pet_id_id ON orders (pet_id, id)`);
    // Replaces ix_orders_pet_id: (pet_id, id) serves every lookup by pet as well.
    await queryRunner.query(`DROP INDEX ix_orders_pet_id`);
    await queryRunner.query(`CREATE INDEX ix_orders_ship_date_id ON orders (ship_date, id)`);
    await queryRunner.query(`
      CREATE TABLE service_secrets (
        name varchar(64) PRIMARY KEY,
        secret bytea NOT NULL CONSTRAINT ck_service_secrets_length CHECK (octet_length(secret) >= 32),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE service_secrets`);
    await queryRunner.query(`DROP INDEX ix_orders_ship_date_id`);
    await queryRunner.query(`CREATE INDEX ix_orders_pet_id ON orders (pet_id)`);
    await queryRunner.query(`DROP INDEX ix_orders_pet_id_id`);
    await queryRunner.query(`DROP INDEX ix_orders_status_id`);
  }
}
