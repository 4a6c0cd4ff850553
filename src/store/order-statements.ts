import { withAttachedWrites, type AttachedWrite } from '../database/attached-writes.js';
import { KeysetPage, type Statement } from '../database/statement.js';
import { outboxWrite, outboxCtes, outboxTraceparent } from '../webhooks/outbox.js';
import type { OrderListFilter } from './dto/order-list.query.js';
import { ORDER_JSON } from './order-json.js';

/*
 * Every statement about orders, built without Nest or TypeORM: OrderRepository runs them, the
 * bench's bare baseline server (bench/baseline-server.ts) imports some from the build, so both
 * send the same SQL, and src/store/order-statements.sql keeps the SQL they make for review
 * (`npm run sql:snapshot`). Each answers an order with ORDER_JSON's columns.
 */
export const orderStatements = {
  /** Every order by id: the select listOrders renders row by row (BatchedQueryStream limits it). */
  listAll(): Statement {
    return { sql: `SELECT ${ORDER_JSON.columns()} FROM orders ORDER BY id`, params: [] };
  },

  /**
   * Up to `take` orders matching `filter`, by id in `order`, after the id `after` (exclusive).
   * Keyset on the id, never an offset: a deep page costs what the first costs. Each condition
   * has its index (migration PagedLists); several statuses are read as one branch per status,
   * each walking (status, id) in order, merged, so no status filter ever reads past the page.
   */
  listPage(
    filter: OrderListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Statement {
    const page = new KeysetPage(order, after);
    if (filter.petId !== undefined) page.where(`pet_id = ${page.param(filter.petId)}`);
    if (filter.shipDateFrom !== undefined) {
      page.where(`ship_date >= ${page.param(filter.shipDateFrom)}::timestamptz`);
    }
    if (filter.shipDateTo !== undefined) {
      page.where(`ship_date < ${page.param(filter.shipDateTo)}::timestamptz`);
    }
    const sql = page.sql(`SELECT ${ORDER_JSON.columns()} FROM orders`, filter.statuses, take);
    return { sql, params: page.params };
  },

  findById(id: string): Statement {
    return { sql: `SELECT ${ORDER_JSON.columns()} FROM orders WHERE id = $1`, params: [id] };
  },

  /**
   * Inserts a pending order when the pet exists, with its order.placed event; no row when the
   * pet does not exist. Attached writes (src/database/attached-writes.ts) commit with it, in
   * the same statement; their outputs are answered by name.
   */
  insertForExistingPet(
    petId: string,
    quantity: number,
    shipDate: Date | null,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Statement {
    return withAttachedWrites(
      (gate) => ({
        sql: `INSERT INTO orders (pet_id, quantity, ship_date)
              SELECT id, $2, $3 FROM pets WHERE id = $1 AND ${gate}
              RETURNING ${ORDER_JSON.columns()}`,
        params: [petId, quantity, shipDate],
      }),
      [outboxWrite('order.placed', ORDER_JSON.sql), ...attachedWrites],
    );
  },

  /**
   * Cancels the order if pending, with its order.cancelled event; answers the status it had
   * (`previousStatus`), no row when there is no such order.
   */
  cancelIfPending(id: string): Statement {
    return {
      sql: `WITH target AS (
         SELECT id, status FROM orders WHERE id = $1 FOR UPDATE
       ), changed AS (
         UPDATE orders SET status = 'cancelled', updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING ${ORDER_JSON.columns('orders')}
       ), ${outboxCtes('order.cancelled', ORDER_JSON.sql, '$2')}
       SELECT target.status AS "previousStatus" FROM target`,
      params: [id, outboxTraceparent()],
    };
  },

  /**
   * Ships the order if pending (ship date = now), with its order.shipped event; answers the
   * status it had (`previousStatus`) and the order as it is now (the shipped row, else the row
   * found), no row when there is no such order.
   */
  shipIfPending(id: string): Statement {
    return {
      sql: `WITH target AS (
         SELECT ${ORDER_JSON.columns()} FROM orders WHERE id = $1 FOR UPDATE
       ), changed AS (
         UPDATE orders SET status = 'shipped', ship_date = now(), updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING ${ORDER_JSON.columns('orders')}
       ), ${outboxCtes('order.shipped', ORDER_JSON.sql, '$2')}
       SELECT target.status AS "previousStatus", shown.*
       FROM target CROSS JOIN (
         SELECT * FROM changed
         UNION ALL
         SELECT * FROM target WHERE NOT EXISTS (SELECT FROM changed)
       ) AS shown`,
      params: [id, outboxTraceparent()],
    };
  },
};
