import {
  withCompanions,
  type Companion,
  type Statement,
} from '../database/companion-statements.js';
import { outboxCompanion } from '../webhooks/outbox.js';
import { CATEGORY_COLUMNS } from './category-json.js';

/*
 * Category statements that need no Nest or TypeORM to build: CategoryRepository runs them, and
 * the bench's bare baseline server (bench/baseline-server.ts) imports them from the build, so
 * both send the same SQL.
 */

/**
 * Inserts the category with its category.created event, unless the name is taken (ignoring
 * case): then no row is inserted and no event recorded. Answers the category's columns (null
 * when refused) and each companion's output by name.
 */
export function insertCategoryStatement(
  name: string,
  description: string | null,
  companions: readonly Companion[] = [],
): Statement {
  return withCompanions(
    (gate) => ({
      sql: `INSERT INTO categories (name, description) SELECT $1, $2 WHERE ${gate}
              ON CONFLICT ((lower(name))) DO NOTHING
              RETURNING ${CATEGORY_COLUMNS},
                json_strip_nulls(json_build_object('id', id, 'name', name, 'description', description)) AS data`,
      params: [name, description],
    }),
    [outboxCompanion('category.created'), ...companions],
  );
}
