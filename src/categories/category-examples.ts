import type { CategoryDto } from './dto/category.dto.js';
import type { CreateCategoryDto } from './dto/create-category.dto.js';

/*
 * The examples the API reference (/reference) shows on the category operations: one category
 * created, and a list. Each must match its schema (test/openapi-examples.e2e-spec.ts).
 */

/** createCategory's request body. */
export const NEW_CATEGORY_EXAMPLE: CreateCategoryDto = {
  name: 'hamster',
  description: 'Small rodents kept as pets',
};

/** The category that body creates. */
export const CATEGORY_EXAMPLE: CategoryDto = { id: 4, ...NEW_CATEGORY_EXAMPLE };

/** Categories by id, as the lists answer them; a category's description is optional. */
export const CATEGORY_LIST_EXAMPLE: CategoryDto[] = [
  { id: 1, name: 'dog', description: 'Domestic dogs of every breed' },
  { id: 2, name: 'cat' },
  { id: 3, name: 'bird', description: 'Parrots, canaries and finches' },
  CATEGORY_EXAMPLE,
];
