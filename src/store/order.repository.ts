import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ServiceUnavailableError } from '../common/errors/domain-error.js';
import type { AppConfig } from '../config/app-config.js';
import { BatchedQueryStream } from '../database/batched-query-stream.js';
import { withCompanions, type Companion } from '../database/companion-statements.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { outboxCompanion, outboxCtes } from '../webhooks/outbox.js';
import type { OrderListFilter } from './dto/order-list.query.js';
import { OrderEntity, OrderStatus, type Order } from './order.entity.js';
import { ORDER_COLUMNS, ORDER_TEXT_COLUMNS, renderOrderJson } from './order-json.js';
import { CANCEL_ORDER_SQL, orderAsJson } from './order-statements.js';

/**
 * Lists up to this long cost one statement; longer ones a COPY in a read-only transaction. See
 * docs/performance.md.
 */
const LIST_SINGLE_QUERY_ROWS = 5000;

interface OrderRow {
  id: string;
  petId: string;
  quantity: number;
  shipDate: Date | null;
  status: OrderStatus;
}

function toOrder(row: OrderRow): Order {
  // Ids stop at 2^53 - 1 (see the initial migration), so Number() is exact.
  return {
    id: Number(row.id),
    petId: Number(row.petId),
    quantity: row.quantity,
    shipDate: row.shipDate,
    status: row.status,
  };
}

/**
 * Every SQL statement about orders. State changes are single conditional statements: the row
 * is locked, the transition applies only from `pending`, and the status found is returned,
 * so concurrent requests on one order produce exactly one transition and each learns why.
 */
@Injectable()
export class OrderRepository {
  private readonly db: AppConfig['db'];
  private openStreams = 0;

  constructor(
    @InjectRepository(OrderEntity) private readonly orders: Repository<OrderEntity>,
    @InjectConfig() config: AppConfig,
  ) {
    this.db = config.db;
  }

  /**
   * Every order by id, as one JSON array (OrderDto's JSON), rendered in Node from plain columns:
   * the text when the list fits in one statement, else a stream of its bytes (see
   * BatchedQueryStream for the one-statement and the COPY paths). At most
   * DB_MAX_STREAMS lists hold a cursor at once per instance, so long lists cannot take the whole
   * pool: past that, 503 with Retry-After. A list that fits in one statement is not counted: it
   * holds its connection no longer than any other query (and a 503 for it would make a balancer
   * that retries on 503, like deploy/nginx, take the instance out of rotation).
   */
  async listAllAsJson(): Promise<string | Readable> {
    const pool = (this.orders.manager.connection.driver as unknown as { master: pg.Pool }).master;
    const stream = new BatchedQueryStream(pool, {
      select: `SELECT ${ORDER_TEXT_COLUMNS} FROM orders ORDER BY id`,
      singleQueryRows: LIST_SINGLE_QUERY_ROWS,
      statementTimeoutMs: this.db.statementTimeoutMs,
      streamTimeoutMs: this.db.streamTimeoutMs,
      renderRow: renderOrderJson,
      acquireCursorSlot: () => this.acquireCursorSlot(),
    });
    return (await stream.open()) ?? stream;
  }

  private acquireCursorSlot(): () => void {
    if (this.openStreams >= this.db.maxStreams) {
      throw new ServiceUnavailableError(
        'Too many order lists are being sent right now; retry shortly.',
        1,
      );
    }
    this.openStreams++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.openStreams--;
    };
  }

  /**
   * Up to `take` orders matching `filter`, by id in `order`, after the id `after` (exclusive).
   * Keyset on the id, never an offset: a deep page costs what the first costs. Each condition
   * has its index (migration PagedLists); several statuses are read as one branch per status,
   * each walking (status, id) in order, merged, so no status filter ever reads past the page.
   */
  async listPage(
    filter: OrderListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<Order[]> {
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const conditions: string[] = [];
    if (after !== undefined) conditions.push(`id ${order === 'asc' ? '>' : '<'} ${param(after)}`);
    if (filter.petId !== undefined) conditions.push(`pet_id = ${param(filter.petId)}`);
    if (filter.shipDateFrom !== undefined) {
      conditions.push(`ship_date >= ${param(filter.shipDateFrom)}::timestamptz`);
    }
    if (filter.shipDateTo !== undefined) {
      conditions.push(`ship_date < ${param(filter.shipDateTo)}::timestamptz`);
    }
    const direction = order === 'asc' ? 'ASC' : 'DESC';
    const limit = param(take);
    const select = (extra: string[]) => {
      const where = [...conditions, ...extra];
      return `SELECT ${ORDER_COLUMNS} FROM orders
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id ${direction} LIMIT ${limit}`;
    };
    const statuses = filter.statuses ?? [];
    const sql =
      statuses.length <= 1
        ? select(statuses.map((status) => `status = ${param(status)}`))
        : `SELECT * FROM (${statuses
            .map((status) => `(${select([`status = ${param(status)}`])})`)
            .join(' UNION ALL ')}) AS page ORDER BY id ${direction} LIMIT ${limit}`;
    const rows: OrderRow[] = await this.orders.query(sql, params);
    return rows.map(toOrder);
  }

  async findById(id: string): Promise<Order | null> {
    const rows: OrderRow[] = await this.orders.query(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`,
      [id],
    );
    return rows[0] ? toOrder(rows[0]) : null;
  }

  /**
   * Inserts a pending order when the pet exists, with its order.placed event; null when the
   * pet does not exist. Companions (src/database/companion-statements.ts) commit with it, in the
   * same statement; their outputs are answered by name.
   */
  async insertForExistingPet(
    petId: string,
    quantity: number,
    shipDate: Date | null,
    companions: readonly Companion[] = [],
  ): Promise<{ order: Order | null; outputs: Record<string, unknown> }> {
    const statement = withCompanions(
      (gate) => ({
        sql: `INSERT INTO orders (pet_id, quantity, ship_date)
              SELECT id, $2, $3 FROM pets WHERE id = $1 AND ${gate}
              RETURNING ${ORDER_COLUMNS}, ${orderAsJson()} AS data`,
        params: [petId, quantity, shipDate],
      }),
      [outboxCompanion('order.placed'), ...companions],
    );
    const rows: Array<OrderRow & Record<string, unknown>> = await this.orders.query(statement.sql, [
      ...statement.params,
    ]);
    const row = rows[0];
    const outputs = Object.fromEntries(companions.map(({ name }) => [name, row?.[name] ?? null]));
    return { order: row && row.id !== null ? toOrder(row) : null, outputs };
  }

  /**
   * Cancels the order if pending, with its order.cancelled event; returns the status it had,
   * or null when there is none.
   */
  async cancelIfPending(id: string): Promise<OrderStatus | null> {
    const rows: Array<{ previousStatus: OrderStatus }> = await this.orders.query(CANCEL_ORDER_SQL, [
      id,
    ]);
    return rows[0]?.previousStatus ?? null;
  }

  /**
   * Ships the order if pending (ship date = now), with its order.shipped event; returns the
   * status it had and the order as it is now, or null when there is none.
   */
  async shipIfPending(id: string): Promise<{ previousStatus: OrderStatus; order: Order } | null> {
    const rows: Array<OrderRow & { previousStatus: OrderStatus }> = await this.orders.query(
      `WITH target AS (
         SELECT id, pet_id, quantity, ship_date, status FROM orders WHERE id = $1 FOR UPDATE
       ), changed AS (
         UPDATE orders SET status = 'shipped', ship_date = now(), updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING orders.id, orders.ship_date, orders.status,
                   ${orderAsJson()} AS data
       ), ${outboxCtes('order.shipped')}
       SELECT target.status AS "previousStatus", target.id, target.pet_id AS "petId", target.quantity,
              COALESCE(shipped.ship_date, target.ship_date) AS "shipDate",
              COALESCE(shipped.status, target.status) AS status
       FROM target LEFT JOIN changed shipped ON shipped.id = target.id`,
      [id],
    );
    const row = rows[0];
    return row ? { previousStatus: row.previousStatus, order: toOrder(row) } : null;
  }
}
