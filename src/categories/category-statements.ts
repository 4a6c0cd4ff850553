import { withAttachedWrites, type AttachedWrite } from '../database/attached-writes.js';
import type { Statement } from '../database/statement.js';
import { outboxWrite } from '../webhooks/outbox.js';
import { CATEGORY_JSON } from './category-json.js';

/*
 * Every statement about categories, built without Nest or TypeORM: CategoryRepository runs
 * them, the bench's bare baseline server (bench/baseline-server.ts) imports some from the
 * build, so both send the same SQL, and src/categories/category-statements.sql keeps the SQL
 * they make for review (`npm run sql:snapshot`). Each answers a category with CATEGORY_JSON's
 * columns.
 */
export const categoryStatements = {
  /** Every category by id. */
  listAll(): Statement {
    return { sql: `SELECT ${CATEGORY_JSON.columns()} FROM categories ORDER BY id`, params: [] };
  },

  /** Up to `take` categories by id in `order`, after the id `after` (exclusive): keyset. */
  listPage(order: 'asc' | 'desc', after: string | undefined, take: number): Statement {
    return after === undefined
      ? {
          sql: `SELECT ${CATEGORY_JSON.columns()} FROM categories ORDER BY id ${order} LIMIT $1`,
          params: [take],
        }
      : {
          sql: `SELECT ${CATEGORY_JSON.columns()} FROM categories WHERE id ${order === 'asc' ? '>' : '<'} $2
             ORDER BY id ${order} LIMIT $1`,
          params: [take, after],
        };
  },

  /**
   * Inserts the category with its category.created event, unless the name is taken (ignoring
   * case): then no row is inserted and no event recorded. Answers the category's columns (null
   * when refused) and each attached write's output by name.
   */
  insertUnlessNameTaken(
    name: string,
    description: string | null,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Statement {
    return withAttachedWrites(
      (gate) => ({
        sql: `INSERT INTO categories (name, description) SELECT $1, $2 WHERE ${gate}
              ON CONFLICT ((lower(name))) DO NOTHING
              RETURNING ${CATEGORY_JSON.columns()}`,
        params: [name, description],
      }),
      [outboxWrite('category.created', CATEGORY_JSON.sql), ...attachedWrites],
    );
  },
};
