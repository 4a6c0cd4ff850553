import { applyDecorators, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { ValidationFailedError } from '../../common/errors/domain-error.js';
import {
  DATE_TIME_WITH_OFFSET_PATTERN,
  formatMicros,
  parseDateTimeWithOffset,
} from '../../common/http/date-time.js';
import { ApiPageQuery } from '../../common/pagination/page-query.decorator.js';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readIdParameter,
  readPageQuery,
  readStatusFilter,
  type PageQuery,
} from '../../common/pagination/page-query.js';
import { OrderStatus } from '../order.entity.js';

/** What v2 listOrders filters on; absent = no condition. */
export interface OrderListFilter {
  /** Distinct, in the enum's order; never all three (that is no condition). */
  statuses?: OrderStatus[];
  petId?: string;
  /** UTC, microseconds: from inclusive, to exclusive. */
  shipDateFrom?: string;
  shipDateTo?: string;
}

export interface OrderListQuery {
  page: PageQuery;
  filter: OrderListFilter;
  /** The filter in canonical form, as the cursor binds it. */
  canonical: Array<[string, string]>;
}

const STATUSES = Object.values(OrderStatus);
const PARAMETERS = [
  ...PAGE_QUERY_PARAMETERS,
  'status',
  'petId',
  'shipDateFrom',
  'shipDateTo',
] as const;

/**
 * The query string of v2 listOrders (docs/api.md, Pages), checked whole: unknown, repeated or
 * empty parameters and values out of range are 400 VALIDATION_FAILED naming the parameter.
 */
@Injectable()
export class OrderListQueryPipe implements PipeTransform<unknown, OrderListQuery> {
  transform(query: unknown): OrderListQuery {
    const parameters = new QueryParameters(query, PARAMETERS);
    const page = readPageQuery(parameters);
    const filter: OrderListFilter = {};
    const canonical: Array<[string, string]> = [];

    const statuses = readStatusFilter(parameters, STATUSES, canonical);
    if (statuses !== undefined) filter.statuses = statuses;

    const petId = readIdParameter(parameters, 'petId');
    if (petId !== undefined) {
      filter.petId = petId;
      canonical.push(['petId', petId]);
    }

    const from = readDateTime(parameters, 'shipDateFrom');
    const to = readDateTime(parameters, 'shipDateTo');
    if (from !== undefined && to !== undefined && from >= to) {
      // Half-open [from, to): an empty or reversed range is a mistake, not an empty list.
      throw new ValidationFailedError('shipDateFrom must be earlier than shipDateTo');
    }
    if (from !== undefined) {
      filter.shipDateFrom = formatMicros(from);
      canonical.push(['shipDateFrom', filter.shipDateFrom]);
    }
    if (to !== undefined) {
      filter.shipDateTo = formatMicros(to);
      canonical.push(['shipDateTo', filter.shipDateTo]);
    }
    return { page, filter, canonical };
  }
}

function readDateTime(parameters: QueryParameters, name: string): bigint | undefined {
  const text = parameters.get(name);
  if (text === undefined) return undefined;
  const micros = parseDateTimeWithOffset(text);
  if (micros === undefined) {
    // A + written unencoded in a query string arrives as a space.
    const hint = text.includes(' ') ? ' (write the + of an offset as %2B)' : '';
    throw new ValidationFailedError(
      `${name} must be an ISO 8601 date-time with an offset (Z or ±hh:mm) within the years 0001 to 9999, like 2026-11-24T09:00:00Z${hint}`,
    );
  }
  return micros;
}

/** The OpenAPI parameters of v2 listOrders, as OrderListQueryPipe accepts them. */
export const ApiOrderListQuery = (): MethodDecorator =>
  applyDecorators(
    ApiPageQuery(),
    ApiQuery({
      name: 'status',
      required: false,
      description:
        'Only orders in one of these statuses: one or more of pending, shipped, cancelled, separated by commas, each at most once',
      schema: {
        type: 'string',
        maxLength: 26,
        pattern: '^(pending|shipped|cancelled)(,(pending|shipped|cancelled)){0,2}$',
        example: 'pending,shipped',
      },
    }),
    ApiQuery({
      name: 'petId',
      required: false,
      description: 'Only orders for this pet',
      schema: {
        type: 'integer',
        format: 'int64',
        minimum: 1,
        example: 7,
      },
    }),
    ApiQuery({
      name: 'shipDateFrom',
      required: false,
      description:
        'Only orders shipping at or after this instant (inclusive); an order without a ship date never matches. ISO 8601 with an offset (Z or ±hh:mm); seconds and up to six fractional digits optional.',
      schema: {
        type: 'string',
        pattern: DATE_TIME_WITH_OFFSET_PATTERN,
        maxLength: 32,
        example: '2026-11-01T00:00:00Z',
      },
    }),
    ApiQuery({
      name: 'shipDateTo',
      required: false,
      description:
        'Only orders shipping before this instant (exclusive); must be later than shipDateFrom. ISO 8601 with an offset (Z or ±hh:mm); seconds and up to six fractional digits optional.',
      schema: {
        type: 'string',
        pattern: DATE_TIME_WITH_OFFSET_PATTERN,
        maxLength: 32,
        example: '2026-12-01T00:00:00Z',
      },
    }),
  );
