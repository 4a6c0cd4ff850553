import { applyDecorators, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { ApiPageQuery } from '../../common/pagination/page-query.decorator.js';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readIdParameter,
  readPageQuery,
  readStatusFilter,
  type PageQuery,
} from '../../common/pagination/page-query.js';
import { PetStatus } from '../pet.entity.js';
import type { PetListFilter } from '../pet-statements.js';

export interface PetListQuery {
  page: PageQuery;
  filter: PetListFilter;
  /** The filter in canonical form, as the cursor binds it. */
  canonical: Array<[string, string]>;
}

const STATUSES = Object.values(PetStatus);
const PARAMETERS = [...PAGE_QUERY_PARAMETERS, 'status', 'categoryId'] as const;

/**
 * The query string of v2 listPets (docs/api.md, Pages), checked whole with listOrders' rules:
 * unknown, repeated or empty parameters and values out of range are 400 VALIDATION_FAILED
 * naming the parameter.
 */
@Injectable()
export class PetListQueryPipe implements PipeTransform<unknown, PetListQuery> {
  transform(query: unknown): PetListQuery {
    const parameters = new QueryParameters(query, PARAMETERS);
    const page = readPageQuery(parameters);
    const filter: PetListFilter = {};
    const canonical: Array<[string, string]> = [];

    const statuses = readStatusFilter(parameters, STATUSES, canonical);
    if (statuses !== undefined) filter.statuses = statuses;

    const categoryId = readIdParameter(parameters, 'categoryId');
    if (categoryId !== undefined) {
      filter.categoryId = categoryId;
      canonical.push(['categoryId', categoryId]);
    }
    return { page, filter, canonical };
  }
}

/** The OpenAPI parameters of v2 listPets, as PetListQueryPipe accepts them. */
export const ApiPetListQuery = (): MethodDecorator =>
  applyDecorators(
    ApiPageQuery(),
    ApiQuery({
      name: 'status',
      required: false,
      description:
        'Only pets in one of these statuses: one or more of available, pending, sold, separated by commas, each at most once',
      schema: {
        type: 'string',
        maxLength: 22,
        pattern: '^(available|pending|sold)(,(available|pending|sold)){0,2}$',
        example: 'available',
      },
    }),
    ApiQuery({
      name: 'categoryId',
      required: false,
      description: 'Only pets of this category',
      schema: { type: 'integer', format: 'int64', minimum: 1, example: 1 },
    }),
  );
