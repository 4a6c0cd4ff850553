import { outboxCtes, SQL_ISO_UTC } from '../webhooks/outbox.js';

/*
 * Order statements that need no Nest or TypeORM to build: OrderRepository runs them, and the
 * bench's bare baseline server (bench/baseline-server.ts) imports them from the build, so both
 * send the same SQL.
 */

/**
 * An order as the API shows it (OrderDto), rendered by PostgreSQL from a row with the orders
 * table's columns: shipDate in UTC with milliseconds and left out when unknown
 * (json_strip_nulls: no other field can be null). The events use it; listOrders renders the
 * same JSON in Node (order-json.ts).
 */
export function orderAsJson(table = 'orders'): string {
  return `json_strip_nulls(json_build_object(
    'id', ${table}.id, 'petId', ${table}.pet_id, 'quantity', ${table}.quantity,
    'shipDate', to_char(${table}.ship_date AT TIME ZONE 'UTC', ${SQL_ISO_UTC}),
    'complete', ${table}.status = 'shipped', 'status', ${table}.status))`;
}

/**
 * Cancels order $1 if pending, with its order.cancelled event; answers the status it had
 * (`previousStatus`), no row when there is no such order.
 */
export const CANCEL_ORDER_SQL = `WITH target AS (
         SELECT id, status FROM orders WHERE id = $1 FOR UPDATE
       ), changed AS (
         UPDATE orders SET status = 'cancelled', updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING ${orderAsJson()} AS data
       ), ${outboxCtes('order.cancelled')}
       SELECT target.status AS "previousStatus" FROM target`;
