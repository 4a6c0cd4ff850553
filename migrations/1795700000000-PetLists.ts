import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * v2's listPets (docs/api.md, Pages): an index per filter, each ending in the id so that a
 * page is one ordered index range (keyset), as PagedLists did for orders.
 *
 * Plain CREATE INDEX, inside the migration's transaction, for the reasons PagedLists gives:
 * the pets table is write-locked while the indexes build (seconds for a million rows).
 */
export class PetLists1795700000000 implements MigrationInterface {
  name = 'PetLists1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX ix_pets_status_id ON pets (status, id)`);
    await queryRunner.query(`CREATE INDEX ix_pets_category_id_id ON pets (category_id, id)`);
    // Replaces ix_pets_category_id: (category_id, id) serves every lookup by category as well.
    await queryRunner.query(`DROP INDEX ix_pets_category_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX ix_pets_category_id ON pets (category_id)`);
    await queryRunner.query(`DROP INDEX ix_pets_category_id_id`);
    await queryRunner.query(`DROP INDEX ix_pets_status_id`);
  }
}
