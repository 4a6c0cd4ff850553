import type { TextRow } from '../database/batched-query-stream.js';
import { isoFromTimestamptz } from '../database/timestamptz.js';

/** The columns renderOrderJson expects, in its order. */
export const ORDER_TEXT_COLUMNS = 'id, pet_id, quantity, ship_date, status';

/**
 * An order row (ORDER_TEXT_COLUMNS, as text) as OrderDto's JSON, byte for byte what
 * JSON.stringify(OrderDto.from(order)) gives in listOrders' key order: id, petId, quantity,
 * shipDate (left out when unknown), complete, status. Ids and quantity are integers, so their
 * text is their JSON; status is one of three words (a check constraint), nothing to escape.
 */
export function renderOrderJson(row: TextRow): string {
  const [id, petId, quantity, shipDate, status] = row;
  const ship = shipDate === null ? '' : `,"shipDate":"${isoFromTimestamptz(shipDate)}"`;
  return `{"id":${id},"petId":${petId},"quantity":${quantity}${ship},"complete":${status === 'shipped'},"status":"${status}"}`;
}
