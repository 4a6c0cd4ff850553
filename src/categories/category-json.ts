/** Columns a statement returns for a category, under the names categoryJson reads. */
export const CATEGORY_COLUMNS = 'id, name, description';

/**
 * A category as the API shows it (CategoryDto), rendered by PostgreSQL from a row of
 * CATEGORY_COLUMNS named `row`: the same text JSON.stringify(CategoryDto.from(category))
 * writes (description left out when absent), so that a stored answer is the answer sent.
 */
export const categoryJson = (row: string): string =>
  `json_strip_nulls(json_build_object(
    'id', ${row}.id, 'name', ${row}.name, 'description', ${row}.description))::text`;
