import { integer, resourceJson, text } from '../database/resource-json.js';
import type { CategoryEntity } from './category.entity.js';
import type { CategoryDto } from './dto/category.dto.js';

/**
 * A category's JSON (CategoryDto), the one definition every statement and answer about
 * categories uses: `{ id, name, description? }`, description left out when absent. See
 * src/database/resource-json.ts for what each rendering is for.
 */
export const CATEGORY_JSON = resourceJson<CategoryEntity, CategoryDto>(
  { id: 'id', name: 'name', description: 'description' },
  [
    { from: 'id', kind: integer },
    { from: 'name', kind: text },
    { from: 'description', kind: text, optional: true },
  ],
);

/** A category as PostgreSQL renders it (json), from the row named `row` of CATEGORY_JSON's columns. */
export const categoryJson = CATEGORY_JSON.sql;
