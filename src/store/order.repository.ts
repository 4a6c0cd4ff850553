import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { OrderEntity, OrderStatus, type Order } from './order.entity.js';

interface OrderRow {
  id: string;
  petId: string;
  quantity: number;
  shipDate: Date | null;
  status: OrderStatus;
}

const ORDER_COLUMNS = `id, pet_id AS "petId", quantity, ship_date AS "shipDate", status`;

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
  constructor(@InjectRepository(OrderEntity) private readonly orders: Repository<OrderEntity>) {}

  async listAll(): Promise<Order[]> {
    const rows: OrderRow[] = await this.orders.query(
      `SELECT ${ORDER_COLUMNS} FROM orders ORDER BY id`,
    );
    return rows.map(toOrder);
  }

  async findById(id: string): Promise<Order | null> {
    const rows: OrderRow[] = await this.orders.query(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`,
      [id],
    );
    return rows[0] ? toOrder(rows[0]) : null;
  }

  /** Inserts a pending order when the pet exists; null when it does not. */
  async insertForExistingPet(
    petId: number,
    quantity: number,
    shipDate: Date | null,
  ): Promise<Order | null> {
    const rows: OrderRow[] = await this.orders.query(
      `INSERT INTO orders (pet_id, quantity, ship_date)
       SELECT id, $2, $3 FROM pets WHERE id = $1
       RETURNING ${ORDER_COLUMNS}`,
      [petId, quantity, shipDate],
    );
    return rows[0] ? toOrder(rows[0]) : null;
  }

  /** Cancels the order if pending; returns the status it had, or null when there is none. */
  async cancelIfPending(id: string): Promise<OrderStatus | null> {
    const rows: Array<{ previousStatus: OrderStatus }> = await this.orders.query(
      `WITH target AS (
         SELECT id, status FROM orders WHERE id = $1 FOR UPDATE
       ), cancelled AS (
         UPDATE orders SET status = 'cancelled', updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING orders.id
       )
       SELECT target.status AS "previousStatus" FROM target`,
      [id],
    );
    return rows[0]?.previousStatus ?? null;
  }

  /**
   * Ships the order if pending (ship date = now); returns the status it had and the order as
   * it is now, or null when there is none.
   */
  async shipIfPending(id: string): Promise<{ previousStatus: OrderStatus; order: Order } | null> {
    const rows: Array<OrderRow & { previousStatus: OrderStatus }> = await this.orders.query(
      `WITH target AS (
         SELECT id, pet_id, quantity, ship_date, status FROM orders WHERE id = $1 FOR UPDATE
       ), shipped AS (
         UPDATE orders SET status = 'shipped', ship_date = now(), updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING orders.id, orders.ship_date, orders.status
       )
       SELECT target.status AS "previousStatus", target.id, target.pet_id AS "petId", target.quantity,
              COALESCE(shipped.ship_date, target.ship_date) AS "shipDate",
              COALESCE(shipped.status, target.status) AS status
       FROM target LEFT JOIN shipped ON shipped.id = target.id`,
      [id],
    );
    const row = rows[0];
    return row ? { previousStatus: row.previousStatus, order: toOrder(row) } : null;
  }
}
