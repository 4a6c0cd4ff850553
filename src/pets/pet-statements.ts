import { KeysetPage, type Statement } from '../database/statement.js';
import type { PetStatus } from './pet.entity.js';

/** What v2 listPets filters on; absent = no condition. */
export interface PetListFilter {
  /** Distinct, in the enum's order; never all three (that is no condition). */
  statuses?: PetStatus[];
  categoryId?: string;
}

/** A pet with its category's id and name (null when it has none), as every read answers it. */
const PET_WITH_CATEGORY = `p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"`;

/*
 * Every statement about pets, built without Nest or TypeORM: PetRepository runs them, and
 * src/pets/pet-statements.sql keeps the SQL they make for review (`npm run sql:snapshot`).
 */
export const petStatements = {
  /** The pet with its category's id and name (null when it has none); no row when no such pet. */
  findByIdWithCategory(id: string): Statement {
    return {
      sql: `SELECT ${PET_WITH_CATEGORY}
         FROM pets p LEFT JOIN categories c ON c.id = p.category_id
         WHERE p.id = $1`,
      params: [id],
    };
  },

  /**
   * Up to `take` pets matching `filter`, by id in `order`, after the id `after` (exclusive):
   * keyset. The page is cut on pets alone (one range of (status, id), (category_id, id) or the
   * primary key; several statuses are one range each, merged), then joined to its categories.
   */
  listPage(
    filter: PetListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Statement {
    const page = new KeysetPage(order, after);
    if (filter.categoryId !== undefined) {
      page.where(`category_id = ${page.param(filter.categoryId)}`);
    }
    const pets = page.sql('SELECT id, name, status, category_id FROM pets', filter.statuses, take);
    return {
      sql: `SELECT ${PET_WITH_CATEGORY}
        FROM (${pets}) AS p LEFT JOIN categories c ON c.id = p.category_id
        ORDER BY p.id ${order === 'asc' ? 'ASC' : 'DESC'}`,
      params: page.params,
    };
  },
};
