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

/**
 * Columns a statement returns for an order, under the names toOrder and orderJson read.
 * Shared by every statement about orders.
 */
export const ORDER_COLUMNS = `id, pet_id AS "petId", quantity, ship_date AS "shipDate", status`;

/**
 * An order as the API shows it (OrderDto), rendered by PostgreSQL from a row of ORDER_COLUMNS
 * named `row`: the same text JSON.stringify(OrderDto.from(order)) writes, so that an answer
 * stored in the database (an Idempotency-Key record) is the answer sent. shipDate in UTC with
 * milliseconds, left out when unknown (json_strip_nulls: no other field can be null).
 */
export const orderJson = (row: string): string =>
  `json_strip_nulls(json_build_object(
    'id', ${row}.id, 'petId', ${row}."petId", 'quantity', ${row}.quantity,
    'shipDate', to_char(${row}."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'complete', ${row}.status = 'shipped', 'status', ${row}.status))::text`;
