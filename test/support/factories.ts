import type pg from 'pg';

type Pool = pg.Pool;

/** Rows the API cannot create (pets) or that a test needs in a given state, inserted by SQL. */
export async function insertCategory(
  db: Pool,
  name: string,
  description: string | null = null,
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO categories (name, description) VALUES ($1, $2) RETURNING id',
    [name, description],
  );
  return Number(rows[0].id);
}

export async function insertPet(
  db: Pool,
  fields: {
    name?: string;
    categoryId?: number | null;
    status?: 'available' | 'pending' | 'sold';
  } = {},
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id',
    [fields.name ?? 'Rex', fields.categoryId ?? null, fields.status ?? 'available'],
  );
  return Number(rows[0].id);
}

export async function insertOrder(
  db: Pool,
  fields: {
    petId: number;
    quantity?: number;
    status?: 'pending' | 'shipped' | 'cancelled';
    shipDate?: Date | null;
  },
): Promise<number> {
  const status = fields.status ?? 'pending';
  const shipDate = fields.shipDate ?? (status === 'shipped' ? new Date() : null);
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO orders (pet_id, quantity, status, ship_date) VALUES ($1, $2, $3, $4) RETURNING id',
    [fields.petId, fields.quantity ?? 1, status, shipDate],
  );
  return Number(rows[0].id);
}

export async function countRows(
  db: Pool,
  table: 'orders' | 'categories' | 'pets' | 'api_keys',
): Promise<number> {
  const { rows } = await db.query<{ count: string }>(`SELECT count(*) FROM ${table}`);
  return Number(rows[0].count);
}

export async function orderStatus(db: Pool, id: number): Promise<string | undefined> {
  const { rows } = await db.query<{ status: string }>('SELECT status FROM orders WHERE id = $1', [
    id,
  ]);
  return rows[0]?.status;
}

/** The stored name and description of a category, or undefined when there is no such row. */
export async function categoryRow(
  db: Pool,
  id: number,
): Promise<{ name: string; description: string | null } | undefined> {
  const { rows } = await db.query<{ name: string; description: string | null }>(
    'SELECT name, description FROM categories WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** How many categories are named `name`, ignoring case. */
export async function countCategoriesNamed(db: Pool, name: string): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    'SELECT count(*) FROM categories WHERE lower(name) = lower($1)',
    [name],
  );
  return Number(rows[0].count);
}
