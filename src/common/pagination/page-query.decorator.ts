import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { PAGE_LIMIT } from './page-query.js';

/** The OpenAPI parameters every paged list takes: limit, cursor, order. */
export const ApiPageQuery = (): MethodDecorator =>
  applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      description: `Items per page, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default}); may change from page to page`,
      schema: {
        type: 'integer',
        format: 'int32',
        minimum: PAGE_LIMIT.min,
        maximum: PAGE_LIMIT.max,
        default: PAGE_LIMIT.default,
      },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      description:
        'The nextCursor of the previous page of the same query (same filters and order); absent for the first page',
      schema: { type: 'string', minLength: 32, maxLength: 32, pattern: '^[A-Za-z0-9_-]{32}$' },
    }),
    ApiQuery({
      name: 'order',
      required: false,
      description: 'By id, ascending (default) or descending',
      schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
    }),
  );
