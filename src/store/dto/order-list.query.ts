import { ValidationFailedError } from '../../common/errors/domain-error.js';
import {
  DATE_TIME_WITH_OFFSET_PATTERN,
  formatMicros,
  parseDateTimeWithOffset,
} from '../../common/http/date-time.js';
import {
  idFilter,
  ListQueryPipe,
  statusFilter,
  type ListFilter,
  type ListQuery,
} from '../../common/pagination/list-query.js';
import type { QueryParameters } from '../../common/pagination/page-query.js';
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

/** The query string of v2 listOrders: read and documented. */
export const ORDER_LIST_QUERY = new ListQueryPipe<OrderListFilter>(
  {
    statuses: statusFilter('orders', Object.values(OrderStatus), 'pending,shipped'),
    petId: idFilter('petId', 'Only orders for this pet', 7),
    shipDateFrom: dateTimeFilter(
      'shipDateFrom',
      'Only orders shipping at or after this instant (inclusive); an order without a ship date never matches.',
      '2026-11-01T00:00:00Z',
    ),
    shipDateTo: dateTimeFilter(
      'shipDateTo',
      'Only orders shipping before this instant (exclusive); must be later than shipDateFrom.',
      '2026-12-01T00:00:00Z',
    ),
  },
  ({ shipDateFrom, shipDateTo }) => {
    // Half-open [from, to): an empty or reversed range is a mistake, not an empty list. Both
    // are UTC with six fractional digits, so their text sorts as their instants do.
    if (shipDateFrom !== undefined && shipDateTo !== undefined && shipDateFrom >= shipDateTo) {
      throw new ValidationFailedError('shipDateFrom must be earlier than shipDateTo');
    }
  },
);

/** An instant filter: any offset accepted, answered (and recorded) in UTC, microseconds. */
function dateTimeFilter(
  parameter: string,
  description: string,
  example: string,
): ListFilter<string> {
  return {
    parameter,
    read(parameters, canonical) {
      const micros = readDateTime(parameters, parameter);
      if (micros === undefined) return undefined;
      const utc = formatMicros(micros);
      canonical.push([parameter, utc]);
      return utc;
    },
    openApi: {
      name: parameter,
      required: false,
      description: `${description} ISO 8601 with an offset (Z or ±hh:mm); seconds and up to six fractional digits optional.`,
      schema: {
        type: 'string',
        pattern: DATE_TIME_WITH_OFFSET_PATTERN,
        maxLength: 32,
        example,
      },
    },
  };
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
