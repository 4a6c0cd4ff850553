import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders, categories, pets and API keys. The rules the API promises are also held here, so
 * no code path can break them: check constraints on status and quantity, a case-insensitive
 * unique name per category, an order always names an existing pet. Identity columns stop at
 * 2^53 - 1 so every id reaches JavaScript clients as an exact JSON number.
 */
export class InitialSchema1795269600000 implements MigrationInterface {
  name = 'InitialSchema1795269600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE categories (
        id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        name varchar(64) NOT NULL,
        description varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ck_categories_name CHECK (char_length(name) BETWEEN 1 AND 64 AND name = btrim(name))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_categories_name_lower ON categories (lower(name))`,
    );

    await queryRunner.query(`
      CREATE TABLE pets (
        id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        name varchar(100) NOT NULL,
        category_id bigint CONSTRAINT fk_pets_category REFERENCES categories (id),
        status varchar(16) NOT NULL DEFAULT 'available'
          CONSTRAINT ck_pets_status CHECK (status IN ('available', 'pending', 'sold')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX ix_pets_category_id ON pets (category_id)`);

    await queryRunner.query(`
      CREATE TABLE orders (
        id bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        pet_id bigint NOT NULL CONSTRAINT fk_orders_pet REFERENCES pets (id),
        quantity integer NOT NULL CONSTRAINT ck_orders_quantity CHECK (quantity BETWEEN 1 AND 1000),
        ship_date timestamptz,
        status varchar(16) NOT NULL DEFAULT 'pending'
          CONSTRAINT ck_orders_status CHECK (status IN ('pending', 'shipped', 'cancelled')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ck_orders_shipped_has_date CHECK (status <> 'shipped' OR ship_date IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE INDEX ix_orders_pet_id ON orders (pet_id)`);

    await queryRunner.query(`
      CREATE TABLE api_keys (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name varchar(100) NOT NULL,
        prefix varchar(16) NOT NULL,
        key_hash char(64) NOT NULL CONSTRAINT uq_api_keys_key_hash UNIQUE
          CONSTRAINT ck_api_keys_key_hash CHECK (key_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE orders`);
    await queryRunner.query(`DROP TABLE pets`);
    await queryRunner.query(`DROP TABLE categories`);
  }
}
