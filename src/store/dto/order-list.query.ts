import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { ValidationFailedError } from '../../common/errors/domain-error.js';
import {
  DATE_TIME_WITH_OFFSET_PATTERN,
  formatMicros,
  parseDateTimeWithOffset,
} from '../../common/http/date-time.js';
import {
  ApiPageQuery,
  ApiStatusFilterQuery,
} from '../../common/pagination/page-query.decorator.js';
import {
  ListQueryPipe,
  readIdFilter,
  readStatusFilter,
  type ListQuery,
  type QueryParameters,
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

export type OrderListQuery = ListQuery<OrderListFilter>;

const STATUSES = Object.values(OrderStatus);

/** The query string of v2 listOrders, checked whole (ListQueryPipe). */
export const ORDER_LIST_QUERY = new ListQueryPipe(
  ['status', 'petId', 'shipDateFrom', 'shipDateTo'],
  (parameters, canonical): OrderListFilter => {
    const filter: OrderListFilter = {
      statuses: readStatusFilter(parameters, STATUSES, canonical),
      petId: readIdFilter(parameters, 'petId', canonical),
    };
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
    return filter;
  },
);

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

/** The OpenAPI parameters of v2 listOrders, as ORDER_LIST_QUERY accepts them. */
export const ApiOrderListQuery = (): MethodDecorator =>
  applyDecorators(
    ApiPageQuery(),
    ApiStatusFilterQuery('orders', STATUSES, 'pending,shipped'),
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
