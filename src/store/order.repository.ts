import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type QueryRunner } from 'typeorm';
import type { JsonRow } from '../common/http/json-array.stream.js';
import type { AppConfig } from '../config/app-config.js';
import { CursorStream } from '../database/cursor-stream.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { outboxCtes, SQL_ISO_UTC } from '../webhooks/outbox.js';
import { OrderEntity, OrderStatus, type Order } from './order.entity.js';

interface OrderRow {
  id: string;
  petId: string;
  quantity: number;
  shipDate: Date | null;
  status: OrderStatus;
}

const ORDER_COLUMNS = `id, pet_id AS "petId", quantity, ship_date AS "shipDate", status`;

/**
 * An order as the API shows it (OrderDto), rendered by PostgreSQL from a row with the orders
 * table's columns: shipDate in UTC with milliseconds and left out when unknown
 * (json_strip_nulls: no other field can be null). listOrders and the events use it.
 */
function orderAsJson(table = 'orders'): string {
  return `json_strip_nulls(json_build_object(
    'id', ${table}.id, 'petId', ${table}.pet_id, 'quantity', ${table}.quantity,
    'shipDate', to_char(${table}.ship_date AT TIME ZONE 'UTC', ${SQL_ISO_UTC}),
    'complete', ${table}.status = 'shipped', 'status', ${table}.status))`;
}

const ORDERS_AS_JSON = `SELECT ${orderAsJson()}::text FROM orders ORDER BY id`;

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

  constructor(
    @InjectRepository(OrderEntity) private readonly orders: Repository<OrderEntity>,
    @InjectConfig() config: AppConfig,
  ) {
    this.db = config.db;
  }

  /**
   * Every order by id as rows of one column, `[json]`, the JSON text rendered by PostgreSQL (no
   * row objects in Node), read through a server-side cursor on a connection of its own. The connection goes
   * back to the pool as soon as the stream ends, fails or is destroyed (a client that hangs
   * up): TypeORM's own stream() releases only on end or error.
   */
  async streamAllAsJson(): Promise<Readable> {
    const runner = this.orders.manager.connection.createQueryRunner();
    const client = (await runner.connect()) as pg.PoolClient;
    try {
      // The cursor is one statement for its whole life, slow readers included.
      await client.query(`SELECT set_config('statement_timeout', $1, false)`, [
        String(this.db.streamTimeoutMs),
      ]);
    } catch (error) {
      await runner.release();
      throw error;
    }
    const rows = new CursorStream<JsonRow>(client, ORDERS_AS_JSON, []);
    rows.once('close', () => void this.release(runner, client, rows.failed));
    return rows;
  }

  /**
   * Gives the stream's connection back: with its statement timeout restored when healthy,
   * dropped from the pool when broken (or when restoring does not answer within a second).
   */
  private async release(
    runner: QueryRunner,
    client: pg.PoolClient,
    broken: boolean,
  ): Promise<void> {
    const queryable = (client as unknown as { _queryable?: boolean })._queryable !== false;
    if (!broken && queryable) {
      const reset = client.query('RESET statement_timeout').then(() => true);
      const timeout = new Promise<false>((done) => setTimeout(() => done(false), 1000).unref());
      broken = !(await Promise.race([reset, timeout]).catch(() => false));
    } else {
      broken = true;
    }
    // pg-pool drops a client that is ending instead of handing it out again.
    if (broken) void client.end().catch(() => undefined);
    await runner.release();
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
   * pet does not exist.
   */
  async insertForExistingPet(
    petId: number,
    quantity: number,
    shipDate: Date | null,
  ): Promise<Order | null> {
    const rows: OrderRow[] = await this.orders.query(
      `WITH changed AS (
         INSERT INTO orders (pet_id, quantity, ship_date)
         SELECT id, $2, $3 FROM pets WHERE id = $1
         RETURNING ${ORDER_COLUMNS}, ${orderAsJson()} AS data
       ), ${outboxCtes('order.placed')}
       SELECT id, "petId", quantity, "shipDate", status FROM changed`,
      [petId, quantity, shipDate],
    );
    return rows[0] ? toOrder(rows[0]) : null;
  }

  /**
   * Cancels the order if pending, with its order.cancelled event; returns the status it had,
   * or null when there is none.
   */
  async cancelIfPending(id: string): Promise<OrderStatus | null> {
    const rows: Array<{ previousStatus: OrderStatus }> = await this.orders.query(
      `WITH target AS (
         SELECT id, status FROM orders WHERE id = $1 FOR UPDATE
       ), changed AS (
         UPDATE orders SET status = 'cancelled', updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING ${orderAsJson()} AS data
       ), ${outboxCtes('order.cancelled')}
       SELECT target.status AS "previousStatus" FROM target`,
      [id],
    );
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
