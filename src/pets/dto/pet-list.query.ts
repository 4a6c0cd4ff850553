import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import {
  ApiPageQuery,
  ApiStatusFilterQuery,
} from '../../common/pagination/page-query.decorator.js';
import {
  ListQueryPipe,
  readIdFilter,
  readStatusFilter,
  type ListQuery,
} from '../../common/pagination/page-query.js';
import { PetStatus } from '../pet.entity.js';
import type { PetListFilter } from '../pet-statements.js';

export type PetListQuery = ListQuery<PetListFilter>;

const STATUSES = Object.values(PetStatus);

/** The query string of v2 listPets, checked whole with listOrders' rules. */
export const PET_LIST_QUERY = new ListQueryPipe(
  ['status', 'categoryId'],
  (parameters, canonical): PetListFilter => ({
    statuses: readStatusFilter(parameters, STATUSES, canonical),
    categoryId: readIdFilter(parameters, 'categoryId', canonical),
  }),
);

/** The OpenAPI parameters of v2 listPets, as PET_LIST_QUERY accepts them. */
export const ApiPetListQuery = (): MethodDecorator =>
  applyDecorators(
    ApiPageQuery(),
    ApiStatusFilterQuery('pets', STATUSES, 'available'),
    ApiQuery({
      name: 'categoryId',
      required: false,
      description: 'Only pets of this category',
      schema: { type: 'integer', format: 'int64', minimum: 1, example: 1 },
    }),
  );
