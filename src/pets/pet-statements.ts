import type { Statement } from '../database/statement.js';

/*
 * Every statement about pets, built without Nest or TypeORM: PetRepository runs them, and
 * src/pets/pet-statements.sql keeps the SQL they make for review (`npm run sql:snapshot`).
 */
export const petStatements = {
  /** The pet with its category's id and name (null when it has none); no row when no such pet. */
  findByIdWithCategory(id: string): Statement {
    return {
      sql: `SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
         FROM pets p LEFT JOIN categories c ON c.id = p.category_id
         WHERE p.id = $1`,
      params: [id],
    };
  },
};
