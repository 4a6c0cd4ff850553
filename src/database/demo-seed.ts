import type { EntityManager } from 'typeorm';

/** Any fixed 64-bit number, distinct from the migration lock. */
const SEED_LOCK_KEY = '7254400911348118';

/**
 * Loads the demo data (categories dog, cat, rabbit; 24 pets over them and every status, ids 1
 * to 4 first, as docs/api.md's examples use them; an order in each state) into
 * an empty database, once: nothing is ever deleted, so a database with any category, pet or
 * order has been seeded or is in real use. Returns whether it seeded.
 */
export async function seedDemoData(manager: EntityManager): Promise<boolean> {
  return manager.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY]);
    const [{ used }]: Array<{ used: boolean }> = await tx.query(
      `SELECT EXISTS (SELECT 1 FROM categories) OR EXISTS (SELECT 1 FROM pets)
              OR EXISTS (SELECT 1 FROM orders) AS used`,
    );
    if (used) {
      return false;
    }
    await tx.query(`
      WITH new_categories AS (
        INSERT INTO categories (name, description) VALUES
          ('dog', 'Domestic dogs of every breed'),
          ('cat', 'Domestic cats'),
          ('rabbit', NULL)
        RETURNING id, name
      ), new_pets AS (
        INSERT INTO pets (name, category_id, status)
        SELECT pet.name, new_categories.id, pet.status
        FROM (VALUES (1, 'Rex', 'dog', 'available'), (2, 'Luna', 'cat', 'available'),
                     (3, 'Thumper', 'rabbit', 'pending'), (4, 'Bella', 'dog', 'sold'),
                     (5, 'Max', 'dog', 'available'), (6, 'Milo', 'cat', 'available'),
                     (7, 'Clover', 'rabbit', 'available'), (8, 'Daisy', 'dog', 'pending'),
                     (9, 'Oliver', 'cat', 'sold'), (10, 'Hazel', 'rabbit', 'available'),
                     (11, 'Charlie', 'dog', 'available'), (12, 'Simba', 'cat', 'pending'),
                     (13, 'Pepper', 'rabbit', 'sold'), (14, 'Cooper', 'dog', 'available'),
                     (15, 'Nala', 'cat', 'available'), (16, 'Biscuit', 'rabbit', 'pending'),
                     (17, 'Rocky', 'dog', 'sold'), (18, 'Cleo', 'cat', 'available'),
                     (19, 'Flopsy', 'rabbit', 'available'), (20, 'Buddy', 'dog', 'pending'),
                     (21, 'Tiger', 'cat', 'sold'), (22, 'Willow', 'rabbit', 'available'),
                     (23, 'Duke', 'dog', 'available'), (24, 'Mochi', 'cat', 'available'))
             AS pet (position, name, category, status)
        JOIN new_categories ON new_categories.name = pet.category
        ORDER BY pet.position
        RETURNING id, name
      )
      INSERT INTO orders (pet_id, quantity, ship_date, status)
      SELECT new_pets.id, o.quantity, o.ship_date, o.status
      FROM (VALUES ('Rex', 1, NULL::timestamptz, 'pending'),
                   ('Thumper', 1, now() + interval '3 days', 'pending'),
                   ('Bella', 1, now() - interval '2 days', 'shipped'),
                   ('Luna', 2, NULL::timestamptz, 'cancelled'))
           AS o (pet, quantity, ship_date, status)
      JOIN new_pets ON new_pets.name = o.pet`);
    return true;
  });
}
